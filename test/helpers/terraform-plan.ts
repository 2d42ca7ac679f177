// Minimal `terraform show -json` pieces for the terraform source's unit tests: a managed resource named by
// its address (`aws_instance.web` is of type `aws_instance`, named `web`).
export const ACCOUNT = '111122223333';

export const res = (address: string, values: Record<string, unknown>) => ({
  address,
  mode: 'managed',
  type: address.split('.')[0],
  name: address.split('.')[1],
  values,
});
