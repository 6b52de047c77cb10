import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { MemberRole, Permissions } from '../../access/permissions';
import { User } from '../users/user.entity';
import { applyPermissions, ProjectMember } from './project-member.entity';

/** Each method scoped by the project. */
@Injectable()
export class MembersRepository {
  constructor(
    @InjectRepository(ProjectMember) private readonly members: Repository<ProjectMember>,
    @InjectRepository(User) private readonly users: Repository<User>,
  ) {}

  list(projectId: number): Promise<ProjectMember[]> {
    return this.members.find({
      where: { projectId },
      relations: { user: true },
      order: { createdAt: 'ASC', userId: 'ASC' },
    });
  }

  find(projectId: number, userId: number): Promise<ProjectMember | null> {
    return this.members.findOne({
      where: { projectId, userId },
      relations: { user: true },
    });
  }

  /** A second insert of the same pair fails on the primary key. */
  async insert(
    projectId: number,
    user: User,
    role: MemberRole,
    permissions: Permissions,
  ): Promise<ProjectMember> {
    const member = this.members.create({ projectId, userId: user.id, role });
    applyPermissions(member, permissions);
    await this.members.insert(member);
    member.user = user;
    return member;
  }

  async save(member: ProjectMember): Promise<void> {
    await this.members.save(member);
  }

  async remove(projectId: number, userId: number): Promise<void> {
    await this.members.delete({ projectId, userId });
  }

  /** Users are no tenant's rows. */
  findUserByEmail(email: string): Promise<User | null> {
    return this.users.findOneBy({ email });
  }
}
