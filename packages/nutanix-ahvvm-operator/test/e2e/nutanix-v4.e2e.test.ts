// The nutanix e2e spec again, on a Prism Central that serves v4 only (v3 answers 404), with the installed operator
// pinned to it (PRISM_API_VERSION=v4): the same stories and checks, on the simulator's v4 endpoints. E2E_PRISM_API
// picks the mode before the spec is loaded (see prism-under-test.ts).
process.env.E2E_PRISM_API = 'v4';
await import('./nutanix.e2e.test.ts');
