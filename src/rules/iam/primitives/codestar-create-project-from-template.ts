// codestar:CreateProjectFromTemplate (undocumented): CodeStar creates the project's resources with its own
// service role, no PassRole asked, so the caller reaches what the roles CodeStar may assume can do.
// Method: Rhino Security Labs #23 "Creating a CodeStar project from a template"; Pacu iam__privesc_scan
// CodeStarCreateProjectFromTemplate.
import { allOf, found, sameAccount, serviceRoles, type EscalationPrimitive } from '../primitive.js';

const codeStarRoles = serviceRoles('codestar.amazonaws.com');

export const codeStarCreateProjectFromTemplate: EscalationPrimitive = {
  name: 'CreateProjectFromTemplate',
  method:
    'Rhino Security Labs, method "Creating a CodeStar project from a template" (codestar:CreateProjectFromTemplate); Pacu CodeStarCreateProjectFromTemplate',
  reach: 'principal',
  requires: ['codestar'],
  find(principal, directory) {
    const access = allOf(principal, ['codestar:CreateProjectFromTemplate']);
    if (!access) return [];
    return codeStarRoles(directory)
      .filter((r) => r !== principal && r.arn && sameAccount(principal, r))
      .map((role) => found(this.name, role, access)!);
  },
};
