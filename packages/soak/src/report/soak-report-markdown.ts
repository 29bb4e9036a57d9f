// soak-report.md: the report for a platform engineer deciding whether to trust the operators in production. Rendered
// from the same SoakReport as soak-report.json, so the two cannot disagree; times are shown as mm:ss since the start.
import { OPERATORS } from '../timeline.ts';
import { SATURATED_CPU_PERCENT, type MachineLoadAt } from './machine-load.ts';
import type { LatencySummary, SoakReport } from './soak-report.ts';

/** Beyond this many, the listing points to the JSON: a report with thousands of violations must stay readable. */
const VIOLATIONS_LISTED = 50;

export interface ChartLink { title: string; file: string }

/** mm:ss since the start (minutes go past 59 rather than rolling into hours, to match the charts' axes). */
function sinceStart(report: SoakReport, at: string): string {
  const seconds = Math.floor((Date.parse(at) - Date.parse(report.startedAt)) / 1000);
  return `${String(Math.floor(seconds / 60)).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
}

function minutesAndSeconds(totalSeconds: number): string {
  const seconds = Math.round(totalSeconds);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

const plural = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;

/** A table cell: a `|` inside would end the cell early. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

function table(header: string[], rows: string[][]): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- |').join('')}`, ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`)];
}

function headline(report: SoakReport): string[] {
  const counts = Object.values(report.invariants);
  const total = counts.reduce((sum, count) => sum + count, 0);
  const broken = counts.filter((count) => count > 0).length;
  const faults = report.faultSchedule.length;
  return [
    report.passed
      ? `# Soak PASSED: all ${plural(counts.length, 'invariant', 'invariants')} held, 0 violations`
      : `# Soak FAILED: ${broken} of ${plural(counts.length, 'invariant', 'invariants')} broken, ${plural(total, 'violation', 'violations')}`,
    '',
    `Seed ${report.seed} on the ${report.cluster} cluster, started ${report.startedAt}: ${minutesAndSeconds(report.durationSeconds)} under workload with ${plural(faults, 'fault', 'faults')} injected, then ${minutesAndSeconds(report.settleSeconds)} of settle with neither, through which the MaintPage Services were still probed. Times below are mm:ss since the start.`,
    '',
    'Reproduce with:',
    '',
    '```sh',
    report.command,
    '```',
  ];
}

function faultsSection(report: SoakReport): string[] {
  return [
    '## Faults injected',
    '',
    'Every kind of fault the injector knows; a 0 is a kind this run did not exercise.',
    '',
    ...table(['fault', 'times'], Object.entries(report.faults).map(([kind, count]) => [kind, String(count)])),
  ];
}

function invariantsSection(report: SoakReport): string[] {
  return [
    '## Invariants',
    '',
    ...table(['invariant', 'violations', 'verdict'], Object.entries(report.invariants).map(([name, count]) => [name, String(count), count === 0 ? 'held' : 'BROKEN'])),
  ];
}

function violationsSection(report: SoakReport): string[] {
  if (report.violations.length === 0) return ['## Violations', '', 'None.'];
  const listed = report.violations.slice(0, VIOLATIONS_LISTED).map((violation) => {
    const machine = violation.machine ? ` _(machine then: ${machineLoadText(violation.machine)})_` : '';
    return `- ${sinceStart(report, violation.at)} **${violation.invariant}**: ${violation.evidence}${machine}`;
  });
  const rest = report.violations.length - listed.length;
  return ['## Violations', '', ...listed, ...(rest > 0 ? ['', `… and ${rest} more, see soak-report.json.`] : [])];
}

const percent = (value: number): string => `${Math.round(value)} %`;

function machineLoadText(machine: MachineLoadAt): string {
  return `CPU ${percent(machine.cpuBusyPercent)} busy, load ${machine.load1.toFixed(1)} on ${plural(machine.cores, 'core', 'cores')}`;
}

function machineLoadSection(report: SoakReport): string[] {
  const load = report.machineLoad;
  if (load === null) return ['## Machine load', '', 'The machine was not sampled.'];
  return [
    '## Machine load',
    '',
    `The machine the cluster, the operators and the soak shared, sampled every 10 s (${plural(load.samples, 'sample', 'samples')}): a timing finding while it was saturated (CPU ${percent(SATURATED_CPU_PERCENT)} busy or more) may be the machine's, and each violation above says the load at its time.`,
    '',
    ...table(['measure', 'p50', 'max'], [
      ['CPU busy', percent(load.cpuBusyPercent.p50), percent(load.cpuBusyPercent.max)],
      [`load average (1 min, ${plural(load.cores, 'core', 'cores')})`, load.load1.p50.toFixed(1), load.load1.max.toFixed(1)],
    ]),
    '',
    `Saturated in ${percent(load.saturatedSamplesPercent)} of the samples.`,
  ];
}

/** A container's ID as `docker ps` and `crictl ps` show it: the first 12 characters after the runtime's scheme. */
/**
 * A container's ID as `docker ps` shortens it (12 hex digits) when it is a digest, as on kind; the local cluster's
 * node names its containers instead (`k8s_manager_<pod>_<namespace>_<uid>_<attempt>`), which only whole tell apart.
 */
const shortContainerId = (id: string): string => {
  const bare = id.split('://')[1] ?? id;
  return /^[0-9a-f]{64}$/.test(bare) ? bare.slice(0, 12) : bare;
};

function rssSection(report: SoakReport): string[] {
  const rows = OPERATORS.flatMap((operator) => {
    const rss = report.rssMiB[operator];
    return rss ? [[operator, rss.pod, shortContainerId(rss.container), rss.start.toFixed(1), rss.end.toFixed(1), rss.slopePerHour.toFixed(2), rss.spanMinutes.toFixed(0), rss.judged ? 'yes' : 'no']] : [];
  });
  return [
    '## Memory (RSS)',
    '',
    `Each slope is a least-squares fit of one process's samples after its warm-up: the container of the operator's Pods that lived longest after its own, as a restart starts a new process from its first megabytes. A process warms up as long as the run did, from when it started and again from when it first led (a leader's caches hold what a follower's do not). One above ${report.rssLeakThresholdMiBPerHour} MiB/hour counts as a leak where it was judged, and it is not judged over a span too short, where a heap growing towards its next garbage collection outweighs any trend.`,
    '',
    ...(rows.length === 0 ? ['No RSS was measured.'] : table(['operator', 'pod', 'container', 'start MiB', 'end MiB', 'slope MiB/hour', 'span minutes', 'judged'], rows)),
  ];
}

const milliseconds = (value: number | null): string => (value === null ? '-' : `${Math.round(value)}`);
const latencyRow = (when: string, summary: LatencySummary): string[] => [when, String(summary.count), milliseconds(summary.p50), milliseconds(summary.p99)];

function switchLatencySection(report: SoakReport): string[] {
  return [
    '## MaintPage switch latency',
    '',
    'From a wanted change (toggle or schedule window) to the Service serving it, also when that was seen during the settle; nearest-rank percentiles, in ms.',
    '',
    ...table(['when', 'switches', 'p50 ms', 'p99 ms'], [
      latencyRow('during faults', report.switchLatencyMs.duringFaults),
      latencyRow('without faults', report.switchLatencyMs.withoutFaults),
    ]),
  ];
}

function alertsSection(report: SoakReport): string[] {
  if (report.alerts.length === 0) return ['## Alerts fired', '', 'None.'];
  const faultsById = new Map(report.faultSchedule.map((fault) => [fault.id, fault]));
  const rows = report.alerts.map((alert) => {
    const labels = Object.entries(alert.labels).map(([name, value]) => `${name}=${value}`).join(', ');
    const beside = alert.faults.map((id) => {
      const fault = faultsById.get(id);
      return fault ? `${fault.kind} ${id} at ${sinceStart(report, fault.startAt)}` : id;
    });
    return [alert.alert, labels, sinceStart(report, alert.firstSeenAt), sinceStart(report, alert.lastSeenAt), beside.length === 0 ? 'none' : beside.join('; ')];
  });
  return ['## Alerts fired', '', ...table(['alert', 'labels', 'first seen', 'last seen', 'faults beside it'], rows)];
}

function workloadSection(report: SoakReport): string[] {
  const rows = Object.entries(report.workload).map(([what, count]) => [what, String(count)]);
  return ['## What the workload did', '', ...(rows.length === 0 ? ['Nothing was recorded.'] : table(['what', 'count'], rows))];
}

function retainedSection(report: SoakReport): string[] {
  return [
    '## Objects retained on purpose',
    '',
    'Store objects that a `Retain` policy keeps after their database was deleted; not leaks.',
    '',
    ...(report.retainedObjects.length === 0 ? ['None.'] : report.retainedObjects.map((key) => `- \`${key}\``)),
  ];
}

function chartsSection(charts: readonly ChartLink[]): string[] {
  return ['## Charts', '', ...charts.flatMap((chart) => [`![${chart.title}](${chart.file})`, ''])];
}

/** The markdown report; `charts` are linked by file name, as they sit beside it. */
export function renderSoakReportMarkdown(report: SoakReport, charts: readonly ChartLink[]): string {
  return [
    headline(report),
    faultsSection(report),
    invariantsSection(report),
    violationsSection(report),
    rssSection(report),
    switchLatencySection(report),
    machineLoadSection(report),
    alertsSection(report),
    workloadSection(report),
    retainedSection(report),
    chartsSection(charts),
  ].map((section) => section.join('\n')).join('\n\n').trimEnd() + '\n';
}
