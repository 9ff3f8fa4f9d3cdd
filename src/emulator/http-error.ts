/**
 * The emulator's error answers: a 4xx/5xx status and the service's error body
 * `{code, msg, extras: {detailCode, detailMsg}}`.
 */
export interface ErrorBody {
  code: number;
  msg: string;
  extras?: { detailCode?: number; detailMsg?: string };
}

export class EmulatorError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(body.extras?.detailMsg ?? body.msg);
  }
}

/** A rule broken by the request: 400 with a specific detail code and message. */
export function invalid(detailCode: number, detailMsg: string): EmulatorError {
  return new EmulatorError(400, { code: -400, msg: 'invalid request', extras: { detailCode, detailMsg } });
}
