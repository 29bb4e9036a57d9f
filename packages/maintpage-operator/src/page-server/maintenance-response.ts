/**
 * The two representations of "down for maintenance": a self-contained HTML page (no scripts, fonts or images to
 * fetch from a site that is down) and a JSON object for API clients.
 */

export interface MaintenanceInfo {
  message: string;
  retryAfterSeconds: number;
  /** When maintenance is expected to end, if known and still ahead. */
  until: Date | undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** `2026-03-01 22:00 UTC`: unambiguous for readers anywhere. */
function formatUtc(time: Date): string {
  return `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function builtInPageHtml(info: MaintenanceInfo): string {
  const back = info.until === undefined ? '' : `\n<p class="until">Expected back by ${formatUtc(info.until)}.</p>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Down for maintenance</title>
<style>
body { font-family: system-ui, sans-serif; margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f6f7f9; color: #1f2328; }
main { max-width: 36rem; padding: 2rem; text-align: center; }
h1 { font-size: 1.6rem; margin-bottom: 0.5rem; }
.until { color: #57606a; }
</style>
</head>
<body>
<main>
<h1>Down for maintenance</h1>
<p>${escapeHtml(info.message)}</p>${back}
</main>
</body>
</html>
`;
}

export function maintenanceJson(info: MaintenanceInfo): string {
  return JSON.stringify({ status: 503, message: info.message, retryAfter: info.retryAfterSeconds });
}
