// How a job's summary or error names many items: the first few, then ', ...' when there are more.
export const firstFew = (items: string[], max: number): string => `${items.slice(0, max).join(', ')}${items.length > max ? ', ...' : ''}`;
