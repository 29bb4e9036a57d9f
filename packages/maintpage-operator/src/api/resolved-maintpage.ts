import { requiredName } from '@k8s-operators/controller-core';
import { maintenanceDeploymentName } from './object-names.ts';
import { parseRfc3339 } from './rfc3339.ts';
import {
  DEFAULT_IMAGE_CHANGE_POLICY,
  DEFAULT_PAGE_MESSAGE,
  DEFAULT_PORT,
  DEFAULT_REPLICAS,
  DEFAULT_RETRY_AFTER_SECONDS,
  type ImageChangePolicy,
} from './defaults.ts';
import type { MaintPage, MaintPageSpec } from './maintpage-resource.ts';

/**
 * A MaintPage read once, as a reconcile starts: every default applied and every string the controller acts on parsed,
 * or the one problem that keeps the controller from acting on it. The builders and decisions take the result and
 * have no default or parser of their own, so they cannot disagree about what a spec means.
 *
 * The API server applies the same defaults and refuses most of the same problems; this covers objects it never
 * checked (stored under an older CRD, built in a test) and what its rules cannot see (`metadata.name`). A problem
 * becomes `Ready=False, reason InvalidSpec` and nothing is applied, rather than a failure on every retry.
 */

/** One bound of the schedule window. */
export interface WindowBound {
  at: Date;
  /** The time as written in the spec: messages quote it, and the page server gets it unchanged (a rewrite would roll its pods). */
  asWritten: string;
}

/**
 * `schedule`, open from `start` (inclusive) to `end` (exclusive). A missing `start` means "open already", a missing
 * `end` "open until the schedule is removed"; a window without either is a spec problem, so it cannot be built.
 */
export type ResolvedMaintenanceWindow =
  | { start: WindowBound; end?: WindowBound | undefined }
  | { start?: WindowBound | undefined; end: WindowBound };

interface ResolvedPageConfig {
  message: string;
  retryAfterSeconds: number;
  html?: string | undefined;
  htmlFrom?: { configMapKeyRef: { name: string; key: string } } | undefined;
}

interface ResolvedMaintPageConfig {
  maintpagetoggle: boolean;
  /** Absent: the built-in page server serves the page, configured by `page`. */
  maintpageimage?: string | undefined;
  port: number;
  replicas: number;
  /** Absent: maintenance follows the toggle alone. */
  schedule?: ResolvedMaintenanceWindow | undefined;
  page: ResolvedPageConfig;
}

interface ResolvedAppConfig {
  appname: string;
  appimage: string;
  port: number;
  replicas: number;
  imageChangePolicy: ImageChangePolicy;
}

/** `MaintPage.spec` with every default applied and the schedule parsed; the seed's field names are kept. */
export interface ResolvedMaintPageSpec {
  maintpageconfig: ResolvedMaintPageConfig;
  appconfig: ResolvedAppConfig;
}

/** The MaintPage with its spec resolved; metadata and status as read, for owner references, names and generation. */
export interface ResolvedMaintPage extends Omit<MaintPage, 'spec'> {
  spec: ResolvedMaintPageSpec;
}

/** As every resolver and parser of the operators returns: the value, or the message that says what to fix. */
export type MaintPageResolution = { ok: true; maintPage: ResolvedMaintPage } | { ok: false; message: string };
export type MaintenanceWindowResolution = { ok: true; window: ResolvedMaintenanceWindow | undefined } | { ok: false; message: string };

/** Label values (the instance label carries the MaintPage name) allow at most 63 characters. */
const MAX_LABEL_VALUE_LENGTH = 63;

/** What is wrong with the names the MaintPage's objects would get; the CRD's rules, on `spec`, cannot see them. */
function nameProblem(maintPage: MaintPage): string | undefined {
  const name = requiredName(maintPage);
  if (name.length > MAX_LABEL_VALUE_LENGTH) {
    return (
      `metadata.name is ${name.length} characters long; a MaintPage name is used as a label value, which allows at ` +
      `most ${MAX_LABEL_VALUE_LENGTH}: recreate it with a shorter name`
    );
  }
  const { appname } = maintPage.spec.appconfig;
  if (appname === maintenanceDeploymentName(maintPage)) {
    return `spec.appconfig.appname "${appname}" is also the name of the maintenance page Deployment; choose another appname`;
  }
  return undefined;
}

/** `spec.maintpageconfig.schedule` as instants, or what to fix in it. */
export function resolveMaintenanceWindow(schedule: { start?: string; end?: string } | undefined): MaintenanceWindowResolution {
  if (schedule === undefined) return { ok: true, window: undefined };
  const bounds: { start?: WindowBound; end?: WindowBound } = {};
  for (const field of ['start', 'end'] as const) {
    const text = schedule[field];
    if (text === undefined) continue;
    const instant = parseRfc3339(text);
    if (instant === undefined) {
      return { ok: false, message: `spec.maintpageconfig.schedule.${field} "${text}" is not an RFC 3339 time with a zone, such as 2026-03-01T22:00:00Z` };
    }
    bounds[field] = { at: new Date(instant), asWritten: text };
  }
  const { start, end } = bounds;
  if (end !== undefined) {
    if (start !== undefined && end.at.getTime() <= start.at.getTime()) {
      return {
        ok: false,
        message:
          `spec.maintpageconfig.schedule.end "${end.asWritten}" is not after spec.maintpageconfig.schedule.start ` +
          `"${start.asWritten}", so the window would never open: set end after start`,
      };
    }
    return { ok: true, window: { start, end } };
  }
  if (start !== undefined) return { ok: true, window: { start } };
  return { ok: false, message: 'spec.maintpageconfig.schedule has neither start nor end: set start, end or both, or remove schedule' };
}

function resolveSpec(spec: MaintPageSpec, schedule: ResolvedMaintenanceWindow | undefined): ResolvedMaintPageSpec {
  const config = spec.maintpageconfig ?? {};
  const page = config.page ?? {};
  const app = spec.appconfig;
  return {
    maintpageconfig: {
      maintpagetoggle: config.maintpagetoggle ?? false,
      maintpageimage: config.maintpageimage,
      port: config.port ?? DEFAULT_PORT,
      replicas: config.replicas ?? DEFAULT_REPLICAS,
      schedule,
      page: {
        message: page.message ?? DEFAULT_PAGE_MESSAGE,
        retryAfterSeconds: page.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS,
        html: page.html,
        htmlFrom: page.htmlFrom,
      },
    },
    appconfig: {
      appname: app.appname,
      appimage: app.appimage,
      port: app.port ?? DEFAULT_PORT,
      replicas: app.replicas ?? DEFAULT_REPLICAS,
      imageChangePolicy: app.imageChangePolicy ?? DEFAULT_IMAGE_CHANGE_POLICY,
    },
  };
}

/** The MaintPage resolved, or the first problem found: its names first, then its schedule. */
export function resolveMaintPage(maintPage: MaintPage): MaintPageResolution {
  const problem = nameProblem(maintPage);
  if (problem !== undefined) return { ok: false, message: problem };
  const schedule = resolveMaintenanceWindow(maintPage.spec.maintpageconfig?.schedule);
  if (!schedule.ok) return schedule;
  return { ok: true, maintPage: { ...maintPage, spec: resolveSpec(maintPage.spec, schedule.window) } };
}
