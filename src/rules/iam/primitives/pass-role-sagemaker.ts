// iam:PassRole with a SageMaker resource that runs code as the passed role: a notebook instance the
// caller opens (CreatePresignedNotebookInstanceUrl), or a training or processing job.
import { passRole } from '../primitive.js';

export const passRoleSageMaker = passRole(
  'PassRole+SageMaker',
  'PMapper SageMaker edges (iam:PassRole + sagemaker:CreateNotebookInstance, CreateTrainingJob or CreateProcessingJob)',
  'sagemaker.amazonaws.com',
  [['sagemaker:CreateNotebookInstance', 'sagemaker:CreateTrainingJob', 'sagemaker:CreateProcessingJob']],
);
