// The nutanix e2e spec again, on a Prism Central that serves v4 only, with the installed operator left to its default
// PRISM_API_VERSION, `auto`, which must find v4 there: were it to fall back to v3, every request would get 404.
// E2E_PRISM_API picks the mode before the spec is loaded (see prism-under-test.ts).
process.env.E2E_PRISM_API = 'auto';
await import('./nutanix.e2e.test.ts');
