import { Injectable } from '@nestjs/common';
import { LooksUpProjectOf } from '../../access/project-lookups';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { PostTemplate } from './post-template.entity';

/** Every method but `projectOf` is scoped by the template's project. */
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

  /** Not scoped by tenant by nature: it answers access checks. */
  async projectOf(templateId: number): Promise<number | null> {
    const row = await this.templates.findOne({
      where: { id: templateId },
      select: { projectId: true },
    });
    return row?.projectId ?? null;
  }

  list(projectId: number): Promise<PostTemplate[]> {
    return this.templates.find({
      where: { projectId },
      order: { createdAt: 'DESC', id: 'DESC' },
    });
  }

  find(projectId: number, templateId: number): Promise<PostTemplate | null> {
    return this.templates.findOneBy({ projectId, id: templateId });
  }

  insert(
    template: Pick<PostTemplate, 'projectId' | 'createdById' | 'name' | 'text'>,
  ): Promise<PostTemplate> {
    return this.templates.save(this.templates.create(template));
  }

  /** False when the project has no such one. */
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

  /** False when the project has no such one. */
  async remove(projectId: number, templateId: number): Promise<boolean> {
    const result = await this.templates.delete({ projectId, id: templateId });
    return !!result.affected;
  }
}
