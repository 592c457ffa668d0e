import { describe, expect, it } from "vitest";
import { parseArgv } from "@/lib/cli/argv";
import { DomainError } from "@/lib/errors";

describe("parseArgv", () => {
  it("splits command words from flags", () => {
    expect(parseArgv(["team", "member", "add", "--team", "t1", "--user", "bob"])).toEqual({
      words: ["team", "member", "add"],
      flags: { team: "t1", user: "bob" },
      rest: [],
    });
  });

  it("keeps bare words after the flags only when asked (import dir's PATH)", () => {
    expect(parseArgv(["import", "dir", "--user", "bob", "/data"], { allowRest: true })).toEqual({
      words: ["import", "dir"],
      flags: { user: "bob" },
      rest: ["/data"],
    });
  });

  it("reads a flag without a value as a switch", () => {
    expect(parseArgv(["app", "create", "--gallery-access", "--user", "bob"]).flags).toEqual({
      "gallery-access": true,
      user: "bob",
    });
    expect(parseArgv(["app", "create", "--user", "bob", "--gallery-access"]).flags["gallery-access"]).toBe(true);
  });

  it("accepts --flag=value, which also carries values starting with --", () => {
    expect(parseArgv(["user", "create", "--username=bob", "--password=--secret--"]).flags).toEqual({
      username: "bob",
      password: "--secret--",
    });
  });

  it("keeps values with spaces and an empty value given with =", () => {
    expect(parseArgv(["app", "create", "--name", "My laptop", "--user="]).flags).toEqual({ name: "My laptop", user: "" });
  });

  it.each([
    [["user", "create", "--username", "a", "--username", "b"], /more than once/],
    [["user", "create", "--username", "a", "stray"], /Unexpected argument 'stray'/],
    [["user", "create", "--", "x"], /not a valid flag/],
    [["user", "create", "--Bad_Flag"], /not a valid flag/],
  ])("refuses %j", (argv, message) => {
    expect(() => parseArgv(argv)).toThrow(DomainError);
    expect(() => parseArgv(argv)).toThrow(message);
  });
});
