// sagemaker:CreatePresignedNotebookInstanceUrl: the caller opens an existing notebook instance's Jupyter and
// reads the credentials of the role it runs as. Needs a notebook instance (DECISIONS "Primitives that need an
// existing resource").
// Method: Rhino Security Labs #28 "Gaining access to an existing SageMaker Jupyter notebook".
import { intoExisting, serviceRoles } from '../primitive.js';

export const sageMakerPresignedNotebookUrl = intoExisting(
  'CreatePresignedNotebookInstanceUrl',
  'Rhino Security Labs, method "Gaining access to an existing SageMaker Jupyter notebook" (sagemaker:CreatePresignedNotebookInstanceUrl)',
  'sagemaker-notebook',
  ['sagemaker:CreatePresignedNotebookInstanceUrl'],
  serviceRoles('sagemaker.amazonaws.com'),
);
