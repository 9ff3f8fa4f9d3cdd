/**
 * The emulator's test routes as a program calls them (`audiences emulator --seed`): what the ad
 * manager does that the service's API cannot, such as linking an ad group to an audience.
 */
export interface EmulatorControl {
  /**
   * Links an ad group to an audience, as creating the ad group with it would (the emulator checks the campaign rules).
   */
  link(adAccountId: number, audienceId: string, adGroupId: string): Promise<void>;
}

/** Refused by the emulator: its status and its own message. */
export class EmulatorControlError extends Error {
  override name = 'EmulatorControlError';
}

export function emulatorControl(url: string): EmulatorControl {
  return {
    link: async (adAccountId, audienceId, adGroupId) => {
      const response = await fetch(`${url}/_emulator/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ adAccountId, audienceId, adGroupId }),
      });
      if (response.ok) return;
      const text = await response.text();
      let message = text;
      try {
        const body = JSON.parse(text) as { msg?: string; extras?: { detailMsg?: string } };
        message = body.extras?.detailMsg ?? body.msg ?? text;
      } catch {
        // Not the emulator's JSON error: its text is the message.
      }
      throw new EmulatorControlError(`${response.status}: ${message}`);
    },
  };
}
