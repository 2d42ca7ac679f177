// iam:UpdateLoginProfile on another user: the caller signs in as that user (CAN_ESCALATE_TO the user, and onward
// from there). On itself (`user/${aws:username}`, the self-service policies) it gains nothing. The user must
// already have a login profile (DECISIONS "Primitives that need an existing resource"): an authorization
// details document does not say, so it is conditional unless an inventory of login profiles names the user.
// Method: Rhino Security Labs #6 "Updating an existing login profile"; Pacu UpdateLoginProfile; PMapper
// iam_edges.py (iam:UpdateLoginProfile).
import { onOthers } from '../primitive.js';

export const updateLoginProfile = onOthers(
  'UpdateLoginProfile',
  'Rhino Security Labs, method "Updating an existing login profile" (iam:UpdateLoginProfile)',
  'user',
  ['iam:UpdateLoginProfile'],
  'login-profile',
);
