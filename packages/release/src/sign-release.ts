// cosign signatures of what a release publishes: each pushed image, by digest (cosign stores the signature beside it
// in the registry, as an OCI referrer of the image), its attestations (an SBOM and a provenance, stored the same way),
// and install.yaml, whose signature bundle is written next to it. Signed here with a key pair
// (`cosign generate-key-pair`; COSIGN_PASSWORD unlocks the private key) and offline: a signing config that names no
// transparency log or timestamp service, and an empty trusted root, so cosign neither uploads anything nor looks up
// Sigstore's TUF repository (it would try to, even to sign with a key). A GitHub release workflow (there is none yet)
// would sign keyless instead, through Sigstore's public services, which this machine cannot reach.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Cosign { binary: string; key: string; env?: NodeJS.ProcessEnv; /** offlineCosignFlags().sign */ offline: readonly string[] }

// What `cosign signing-config create` writes with no service named: sign with the key alone.
const NO_SERVICES = { mediaType: 'application/vnd.dev.sigstore.signingconfig.v0.2+json', rekorTlogConfig: {}, tsaConfig: {} };
const NO_TRUSTED_ROOTS = { mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1' };

/**
 * The files that keep cosign offline, written into `dir` (the caller's scratch directory, which it removes): `sign`
 * takes both flags, `verify` only the trusted root (it has no signing config).
 */
export async function offlineCosignFlags(dir: string): Promise<{ sign: string[]; verify: string[] }> {
  await writeFile(join(dir, 'signing-config.json'), JSON.stringify(NO_SERVICES));
  await writeFile(join(dir, 'trusted-root.json'), JSON.stringify(NO_TRUSTED_ROOTS));
  const verify = ['--trusted-root', join(dir, 'trusted-root.json')];
  return { sign: ['--signing-config', join(dir, 'signing-config.json'), ...verify], verify };
}

async function cosign(signer: Cosign, args: readonly string[], what: string): Promise<string> {
  const result = await run(signer.binary, [...args], { env: { ...process.env, ...signer.env }, maxBuffer: 16 * 1024 * 1024 }).catch((error: unknown) => {
    const stderr = (error as { stderr?: string }).stderr?.trim() ?? (error as Error).message;
    throw new Error(`${what} failed: ${stderr}`, { cause: error });
  });
  return result.stdout;
}

// Never a tag, which could name other bytes by the time it is verified.
function requireDigest(image: string, verb: 'sign' | 'attest'): void {
  if (!/@sha256:[0-9a-f]{64}$/.test(image)) throw new Error(`refusing to ${verb} ${image}: an image is ${verb === 'sign' ? 'signed' : 'attested'} by digest, not by tag`);
}

/** Signs `image` (registry/name@sha256:…). */
export async function signImage(signer: Cosign, image: string): Promise<void> {
  requireDigest(image, 'sign');
  await cosign(signer, ['sign', '--yes', '--key', signer.key, ...signer.offline, image], `cosign sign ${image}`);
}

/** The predicate types a release attests, as `cosign attest --type` and `cosign verify-attestation --type` name them. */
export type AttestationType = 'spdxjson' | 'slsaprovenance1';

/** Signs `predicate` (a JSON file) as an in-toto statement about `image` (by digest), and attaches it there. */
export async function attestImage(signer: Cosign, image: string, type: AttestationType, predicate: string): Promise<void> {
  requireDigest(image, 'attest');
  await cosign(signer, ['attest', '--yes', '--key', signer.key, ...signer.offline, '--type', type, '--predicate', predicate, image], `cosign attest --type ${type} ${image}`);
}

/** Signs a file; the bundle (signature and what verifies it) goes to `<file>.sigstore.json`. Returns its path. */
export async function signFile(signer: Cosign, file: string): Promise<string> {
  const bundle = `${file}.sigstore.json`;
  await cosign(signer, ['sign-blob', '--yes', '--key', signer.key, ...signer.offline, '--bundle', bundle, file], `cosign sign-blob ${file}`);
  return bundle;
}
