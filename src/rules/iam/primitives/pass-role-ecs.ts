// iam:PassRole with ecs:RegisterTaskDefinition and ecs:RunTask (or CreateService): a task runs the
// caller's container as the passed task role.
import { passRole } from '../primitive.js';

export const passRoleEcs = passRole(
  'PassRole+ECS',
  'Rhino Security Labs (part 2) / PMapper: passing a task role to a new ECS task (iam:PassRole + ecs:RegisterTaskDefinition + ecs:RunTask or ecs:CreateService)',
  'ecs-tasks.amazonaws.com',
  ['ecs:RegisterTaskDefinition', ['ecs:RunTask', 'ecs:StartTask', 'ecs:CreateService']],
);
