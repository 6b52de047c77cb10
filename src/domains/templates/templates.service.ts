import { Injectable } from '@nestjs/common';
import { AiService } from '../ai/ai.service';
import { formatTimestamp } from '../../infrastructure/database/timestamps';
import { AppError } from '../../http/errors/error-codes';
import { MAX_TEMPLATE_NAME, TemplateDto, TemplateListDto } from './template.dto';
import { PostTemplate } from './post-template.entity';
import { TEMPLATE_NOT_FOUND, TemplatesRepository } from './templates.repository';

@Injectable()
export class TemplatesService {
  constructor(
    private readonly repository: TemplatesRepository,
    private readonly ai: AiService,
  ) {}

  async list(projectId: number): Promise<TemplateListDto> {
    const rows = await this.repository.list(projectId);
    const items = rows.map(toTemplateDto);
    return { items, count: items.length };
  }

  async get(projectId: number, id: number): Promise<TemplateDto> {
    return toTemplateDto(await this.find(projectId, id));
  }

  async create(
    projectId: number,
    userId: number,
    input: { name: string; text: string },
  ): Promise<TemplateDto> {
    // The INSERT returns the id and both timestamps (as the database's text): no read-back needed.
    const saved = await this.repository.insert({
      projectId,
      createdById: userId,
      name: input.name,
      text: input.text,
    });
    return toTemplateDto(saved);
  }

  async update(
    projectId: number,
    id: number,
    change: { name?: string; text?: string },
  ): Promise<TemplateDto> {
    const columns = Object.fromEntries(
      Object.entries(change).filter(([, value]) => value !== undefined),
    );
    if (!(await this.repository.update(projectId, id, columns))) throw templateNotFound();
    return this.get(projectId, id);
  }

  async remove(projectId: number, id: number): Promise<void> {
    if (!(await this.repository.remove(projectId, id))) throw templateNotFound();
  }

  async generate(
    projectId: number,
    userId: number,
    prompt: string,
    name?: string,
  ): Promise<TemplateDto> {
    const text = await this.ai.generateTemplateText(prompt);
    return this.create(projectId, userId, { name: name ?? nameFromPrompt(prompt), text });
  }

  private async find(projectId: number, id: number): Promise<PostTemplate> {
    const template = await this.repository.find(projectId, id);
    if (!template) throw templateNotFound();
    return template;
  }
}

function templateNotFound(): AppError {
  return new AppError(TEMPLATE_NOT_FOUND.code, TEMPLATE_NOT_FOUND.message);
}

function nameFromPrompt(prompt: string): string {
  const line = prompt.trim().split('\n')[0] ?? '';
  return [...line].slice(0, MAX_TEMPLATE_NAME).join('') || 'Template';
}

export function toTemplateDto(template: PostTemplate): TemplateDto {
  return {
    id: template.id,
    project_id: template.projectId,
    name: template.name,
    text: template.text,
    created_at: formatTimestamp(template.createdAt),
    updated_at: formatTimestamp(template.updatedAt),
  };
}
