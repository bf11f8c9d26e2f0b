// The access log's line per request, formatted here in pino's own JSON shape (level, time, pid, the fields, msg): one
// template and a few JSON.stringify calls instead of pino's generic serialisation and redaction of an object per call.
// Its fields carry no secret (id, method, route, actor id, status, duration).
export interface AccessFields {
  req: string;
  method: string;
  route: string;
  actor: string | undefined;
  status: number;
  ms: number;
}

const INFO = 30;
const head = `{"level":${INFO},"time":`;
const pidPart = `,"pid":${process.pid},"req":`;

/** One JSON line with its newline, byte for byte what `log.info({ req, method, route, actor, status, ms }, 'request')` writes. */
export function accessLine(f: AccessFields): string {
  const actor = f.actor === undefined ? '' : `,"actor":${JSON.stringify(f.actor)}`;
  return `${head}${Date.now()}${pidPart}${JSON.stringify(f.req)},"method":${JSON.stringify(f.method)},"route":${JSON.stringify(f.route)}${actor},"status":${f.status},"ms":${f.ms},"msg":"request"}\n`;
}
