// The nutanix e2e spec again, with the installed operator speaking Prism Central's v4 API (VMM v4.2): the same stories
// and the same checks, on the simulator's v4 endpoints. E2E_PRISM_API picks the API before the spec is loaded.
process.env.E2E_PRISM_API = 'v4';
await import('./nutanix.e2e.test.ts');
