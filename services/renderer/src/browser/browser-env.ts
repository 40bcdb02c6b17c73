/**
 * What Chromium needs of this process's environment: where programs and its profile are, language, time zone,
 * display and font settings. Nothing else passes: the caller token and the page signing key stay in this process, out
 * of reach of a page that gets code running in the browser.
 */
const PASSED = /^(PATH|HOME|TMPDIR|LANG|LANGUAGE|LC_[A-Z]+|TZ|DISPLAY|WAYLAND_DISPLAY|XDG_[A-Z_]+|FONTCONFIG_[A-Z_]+)$/;

/** The environment the browser is launched with. */
export function browserEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && PASSED.test(entry[0])),
  );
}
