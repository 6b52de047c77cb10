import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { MemberRole, Permissions } from '../../access/permissions';
import { User } from '../users/user.entity';
import { applyPermissions, ProjectMember } from './project-member.entity';

/** Project members with their users, each method scoped by the project. */
@Injectable()
export class MembersRepository {
  constructor(
    @InjectRepository(ProjectMember) private readonly members: Repository<ProjectMember>,
    @InjectRepository(User) private readonly users: Repository<User>,
  ) {}

  /** The project's members with their users, oldest first. */
  list(projectId: number): Promise<ProjectMember[]> {
    return this.members.find({
      where: { projectId },
      relations: { user: true },
      order: { createdAt: 'ASC', userId: 'ASC' },
    });
  }

  /** The project's member with its user, or null when the user is no member of it. */
  find(projectId: number, userId: number): Promise<ProjectMember | null> {
    return this.members.findOne({
      where: { projectId, userId },
      relations: { user: true },
    });
  }

  /**
   * Inserts the user as a member of the project; the INSERT returns created_at (as the database's
   * text) into the member. A second insert of the same pair fails on the primary key.
   */
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

  /** Stores the member's role and flags; its key is its project and user. */
  async save(member: ProjectMember): Promise<void> {
    await this.members.save(member);
  }

  async remove(projectId: number, userId: number): Promise<void> {
    await this.members.delete({ projectId, userId });
  }

  /** The user with this (normalized) email, to be added to a team: users are no tenant's rows. */
  findUserByEmail(email: string): Promise<User | null> {
    return this.users.findOneBy({ email });
  }
}
