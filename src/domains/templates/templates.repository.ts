import { Injectable } from '@nestjs/common';
import { LooksUpProjectOf } from '../../access/project-lookups';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PostTemplate } from './post-template.entity';

/** Post templates' rows; every method but `projectOf` is scoped by the template's project. */
export const TEMPLATE_NOT_FOUND = {
  code: 'template_not_found',
  message: 'Template not found',
} as const;

@Injectable()
@LooksUpProjectOf({ resource: 'template', notFound: TEMPLATE_NOT_FOUND })
export class TemplatesRepository {
  constructor(
    @InjectRepository(PostTemplate) private readonly templates: Repository<PostTemplate>,
  ) {}

  /** The project a template belongs to, for access checks: not scoped by tenant by nature. */
  async projectOf(templateId: number): Promise<number | null> {
    const row = await this.templates.findOne({
      where: { id: templateId },
      select: { projectId: true },
    });
    return row?.projectId ?? null;
  }

  /** The project's templates, newest first. */
  list(projectId: number): Promise<PostTemplate[]> {
    return this.templates.find({
      where: { projectId },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  /** The project's template, or null when it has none with this id. */
  find(projectId: number, templateId: number): Promise<PostTemplate | null> {
    return this.templates.findOneBy({ projectId, id: templateId });
  }

  /** Inserts a template; the INSERT returns its id and both timestamps (as the database's text). */
  insert(
    template: Pick<PostTemplate, 'projectId' | 'createdById' | 'name' | 'text'>,
  ): Promise<PostTemplate> {
    return this.templates.save(this.templates.create(template));
  }

  /** Changes the project's template and its updated_at; false when the project has no such one. */
  async update(
    projectId: number,
    templateId: number,
    columns: Partial<Pick<PostTemplate, 'name' | 'text'>>,
  ): Promise<boolean> {
    const result = await this.templates.update(
      { projectId, id: templateId },
      { ...columns, updatedAt: () => 'now()' },
    );
    return !!result.affected;
  }

  /** Deletes the project's template; false when the project has no such one. */
  async remove(projectId: number, templateId: number): Promise<boolean> {
    const result = await this.templates.delete({ projectId, id: templateId });
    return !!result.affected;
  }
}
