// The route table: every /v1 endpoint, in the order the OpenAPI document lists them.
import type { RouteDef } from './route.ts';
import { getMe } from '../routes/me.ts';

export const routes: RouteDef[] = [
  getMe,
];
