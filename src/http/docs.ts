// GET /v1/docs: a readable reference rendered by Swagger UI from /v1/openapi.json, served from the
// swagger-ui-dist package in node_modules (no CDN).
import { createRequire } from 'node:module';
import express, { type Router } from 'express';

// absolute-path.js, not the package's main file, which would load the browser bundle into Node.
const swaggerUiPath = (createRequire(import.meta.url)('swagger-ui-dist/absolute-path.js') as () => string)();

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Conversion and Lead Management API - reference</title>
  <link rel="stylesheet" href="/v1/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/v1/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/v1/docs/swagger-ui-bundle.js"></script>
  <script src="/v1/docs/swagger-ui-standalone-preset.js"></script>
  <script src="/v1/docs/init.js"></script>
</body>
</html>
`;

// A separate script rather than an inline one, so the page can forbid inline scripts.
const INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
  });
};
`;

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'";

export function docsRouter(): Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', CSP);
    next();
  });
  router.get('/', (_req, res) => {
    res.type('html').send(PAGE);
  });
  router.get('/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  router.use(express.static(swaggerUiPath, { index: false, fallthrough: true, maxAge: '1h' }));
  return router;
}
