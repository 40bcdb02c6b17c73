/**
 * The operator commands behind `npm run admin`, for deployments without the
 * dashboard: they talk gRPC to the auth service like the gateway does.
 */
import { parseArgs } from "node:util";
import { type AuthClient, WinnowError } from "@winnow/platform";
import type { AccountSummary } from "@winnow/platform/gen/winnow/auth/v1/auth.js";

export const USAGE = `Usage: npm run admin -- <command>

Commands:
  create-account <email>            create an account (key only, no dashboard password); prints its key
  rotate-key <account id | email>   replace the account's key; the old key stops working at once; prints the new key
  list-accounts                     every account with its key id and usage totals
  usage <account id | email> [--days N]
                                    usage per key and UTC day over the last N days (default 30)
  templates list <host>             the extractor's learned templates of a host, every account's: pages, locators,
                                    trusted fields
  templates forget <host> [--tenant <account id> | --shared]
                                    forget the templates learned for a host: every account's, one account's, or the
                                    shared ones

Environment: AUTH_ADDR (default 127.0.0.1:50051), the auth service's gRPC address; for templates, the
extractor's DATABASE_URL or WINNOW_DATA_DIR (its PGlite database opens in one process only: stop the extractor first).`;

/** A command line the CLI cannot run: printed with the usage, exit code 2. */
export class UsageError extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Runs one command; lines go to `print`. WinnowErrors from auth propagate with their message. */
export async function runAdmin(argv: string[], auth: AuthClient, print: (line: string) => void): Promise<void> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { days: { type: "string" } },
  });
  const [command, argument, ...rest] = positionals;
  const extra = command === "list-accounts" ? positionals.slice(1) : rest;
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  const required = (what: string) => {
    if (!argument) throw new UsageError(`${command} needs ${what}`);
    return argument;
  };

  switch (command) {
    case "create-account": {
      const created = await auth.createAccount({ email: required("an email"), password: "" });
      print(`account ${created.account!.id} (${created.account!.email})`);
      print(`API key: ${created.apiKey}`);
      return;
    }
    case "rotate-key": {
      const accountId = await resolveAccount(auth, required("an account id or email"));
      const rotated = await auth.rotateKey({ accountId });
      print(`new API key (the previous one no longer works): ${rotated.apiKey}`);
      return;
    }
    case "list-accounts": {
      const { accounts } = await auth.listAccounts({});
      print(
        table(
          ["account id", "email", "plan", "created", "key id", "scrapes", "tokens in", "tokens out"],
          accounts.map(summaryRow),
        ),
      );
      return;
    }
    case "usage": {
      const days = values.days === undefined ? 30 : Number(values.days);
      if (!Number.isInteger(days) || days < 1 || days > 366)
        throw new UsageError("--days must be a whole number from 1 to 366");
      const accountId = await resolveAccount(auth, required("an account id or email"));
      const usage = await auth.getUsage({ sessionToken: "", accountId, days });
      if (usage.days.length === 0) print(`no usage in the last ${days} days`);
      else
        print(
          table(
            ["day", "key id", "scrapes", "tokens in", "tokens out"],
            usage.days.map((d) => [d.day, d.keyId, d.scrapes, d.tokensIn, d.tokensOut]),
          ),
        );
      return;
    }
    case undefined:
      throw new UsageError("no command given");
    default:
      throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  }
}

/** An account id as given, or the id of the account with this email. */
async function resolveAccount(auth: AuthClient, idOrEmail: string): Promise<string> {
  if (UUID.test(idOrEmail)) return idOrEmail;
  const { accounts } = await auth.listAccounts({});
  const match = accounts.find((summary) => summary.account?.email === idOrEmail.trim().toLowerCase());
  if (!match) throw new WinnowError("not-found", `no account with email ${idOrEmail}`);
  return match.account!.id;
}

function summaryRow(summary: AccountSummary): (string | number)[] {
  const account = summary.account!;
  return [
    account.id,
    account.email,
    account.limits?.plan ?? "",
    account.createdAt?.toISOString().slice(0, 10) ?? "",
    summary.keyId || "-",
    summary.scrapes,
    summary.tokensIn,
    summary.tokensOut,
  ];
}

function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((row) => row.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
