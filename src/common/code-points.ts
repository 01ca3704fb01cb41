/** Length limits in the binding count Unicode code points, not UTF-16 units. */
export const codePointLength = (value: string): number => {
  let count = 0;
  for (const _ of value) count++;
  return count;
};
