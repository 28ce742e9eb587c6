// The route table: every /v1 endpoint, in the order the OpenAPI document lists them.
import type { RouteDef } from './route.ts';

export const routes: RouteDef[] = [];
