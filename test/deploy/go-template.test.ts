/** The Go-template subset behaves as Go's text/template and Sprig do for what the chart uses. */
import { describe, expect, it } from "vitest";
import { parseTemplates, renderFile } from "./go-template.js";

const render = (source: string, values: Record<string, unknown> = {}, helpers = "") =>
  renderFile(parseTemplates(new Map([["_helpers.tpl", helpers], ["t.yaml", source]])), "t.yaml", { Values: values });

describe("go-template subset", () => {
  it("trims whitespace at {{- and -}} only", () => {
    expect(render("a  {{- 1 -}}  b {{ 2 }} c")).toBe("a1b 2 c");
  });

  it("ranges over lists in order and maps in key order, with scoped variables", () => {
    expect(render(`{{- range $i, $v := list "x" "y" }}{{ $i }}={{ $v }};{{ end }}`)).toBe("0=x;1=y;");
    expect(render(`{{- range $k, $v := .Values.m }}{{ $k }}={{ . }};{{ end }}`, { m: { b: 2, a: 1 } })).toBe("a=1;b=2;");
    expect(() => render(`{{- range $v := list 1 }}{{ $x := 2 }}{{ end }}{{ $x }}`)).toThrow(/undefined variable \$x/);
  });

  it("follows Go truthiness in if, with, and, or, default", () => {
    const values = { zero: 0, empty: {}, list: [], text: "t" };
    expect(render(`{{ if .Values.zero }}y{{ else if .Values.text }}t{{ else }}n{{ end }}`, values)).toBe("t");
    expect(render(`{{ with .Values.empty }}y{{ else }}n{{ end }}{{ with .Values.text }}{{ . }}{{ end }}`, values)).toBe("nt");
    expect(render(`{{ or .Values.list .Values.text }} {{ and .Values.text .Values.zero }} {{ .Values.missing | default "d" }}`, values)).toBe("t 0 d");
  });

  it("passes the piped value last, and gives an include its argument as both . and $", () => {
    const helpers = `{{- define "h" -}}{{ .name }}/{{ $.name }}{{- end }}`;
    expect(render(`{{ include "h" (dict "name" "n") | nindent 2 }}|{{ 3 | quote }}|{{ mul 2 1000 }}`, {}, helpers)).toBe("\n  n/n|\"3\"|2000");
    expect(render(`{{ toYaml .Values.m | nindent 2 }}`, { m: { a: [1] } })).toBe("\n  a:\n    - 1");
  });

  it("refuses what it does not implement, and fail stops the render", () => {
    expect(() => render(`{{ tpl "x" . }}`)).toThrow(/unsupported function "tpl"/);
    expect(() => render(`{{ if true }}x`)).toThrow(/if without end/);
    expect(() => render(`{{ end }}`)).toThrow(/without a block/);
    expect(() => render(`{{ fail "no way" }}`)).toThrow(/fail: no way/);
  });
});
