// chart-render renders a Helm chart's templates the way `helm template` does, closely enough to test a
// chart on a machine where no helm binary can be installed. It APPROXIMATES helm; it is not helm.
//
// What it shares with helm: Go text/template, the sprig function map (without env/expandenv, as helm
// removes them), helm's own include, tpl, required, toYaml, fromYaml, fromYamlArray, toJson, fromJson,
// lookup (always empty, as in `helm template`), sigs.k8s.io/yaml for YAML (the library helm uses),
// missingkey=zero with "<no value>" blanked, the objects .Values, .Release, .Chart, .Capabilities,
// .Template and .Files (Get only), and the check of the merged values against values.schema.json with
// xeipuuv/gojsonschema before rendering, as older Helm 3 releases do (newer ones use another
// draft-07 validator).
//
// Where it differs from helm:
//   - --set takes only dotted keys (a.b.c=v) with helm's scalar typing (true/false/null/integers);
//     no list indexes, no escaped dots, no --set-string/--set-file;
//   - .Files has Get and GetBytes only (no Glob, Lines, AsConfig, AsSecrets), reads any file under the
//     chart directory and ignores .helmignore;
//   - no toToml, fromJsonArray or toYamlPretty; no lint/strict mode (missingkey=error);
//   - Chart.yaml is read for the .Chart fields only: no apiVersion, kubeVersion or dependency checks;
//   - no subcharts, no dependencies, no library charts, no hooks, no CRDs directory handling;
//   - .Capabilities is fixed (Kubernetes v1.30.0, the built-in API versions listed below, plus any
//     --api-versions given); no .Capabilities.HelmVersion details beyond a version string;
//   - output is in template file order, not helm's install (kind) order;
//   - --notes prints the rendered NOTES.txt instead of the manifests.
//
// Usage: chart-render CHART_DIR [--name NAME] [--namespace NS] [-f values.yaml]... [--set a.b=v]...
//
//	[--api-versions group/version]... [--skip-schema-validation] [--notes]
package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/xeipuuv/gojsonschema"
	"sigs.k8s.io/yaml"
)

// chartMeta mirrors the fields of helm's chart.Metadata that templates read through .Chart.
type chartMeta struct {
	APIVersion  string   `json:"apiVersion"`
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	AppVersion  string   `json:"appVersion"`
	Description string   `json:"description"`
	Type        string   `json:"type"`
	KubeVersion string   `json:"kubeVersion"`
	Keywords    []string `json:"keywords"`
	Home        string   `json:"home"`
	Icon        string   `json:"icon"`
}

// versionSet answers .Capabilities.APIVersions.Has like helm's VersionSet.
type versionSet []string

func (v versionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

// files answers .Files.Get relative to the chart directory.
type files struct{ root string }

func (f files) Get(name string) string {
	data, err := os.ReadFile(filepath.Join(f.root, filepath.FromSlash(name)))
	if err != nil {
		return ""
	}
	return string(data)
}

func (f files) GetBytes(name string) []byte { return []byte(f.Get(name)) }

type options struct {
	chartDir    string
	name        string
	namespace   string
	valueFiles  []string
	sets        []string
	apiVersions []string
	notes       bool
	skipSchema  bool
}

func main() {
	opts, err := parseArgs(os.Args[1:])
	if err == nil {
		err = run(opts, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		os.Exit(1)
	}
}

func parseArgs(args []string) (options, error) {
	opts := options{name: "release-name", namespace: "default"}
	next := func(i *int, flag string) (string, error) {
		*i++
		if *i >= len(args) {
			return "", fmt.Errorf("flag %s needs a value", flag)
		}
		return args[*i], nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var err error
		var v string
		switch {
		case a == "-f" || a == "--values":
			v, err = next(&i, a)
			opts.valueFiles = append(opts.valueFiles, v)
		case a == "--set":
			v, err = next(&i, a)
			opts.sets = append(opts.sets, v)
		case a == "--name":
			opts.name, err = next(&i, a)
		case a == "--namespace" || a == "-n":
			opts.namespace, err = next(&i, a)
		case a == "--api-versions":
			v, err = next(&i, a)
			opts.apiVersions = append(opts.apiVersions, v)
		case a == "--notes":
			opts.notes = true
		case a == "--skip-schema-validation":
			opts.skipSchema = true
		case strings.HasPrefix(a, "-"):
			err = fmt.Errorf("unknown flag %s", a)
		case opts.chartDir == "":
			opts.chartDir = a
		default:
			err = fmt.Errorf("unexpected argument %s", a)
		}
		if err != nil {
			return opts, err
		}
	}
	if opts.chartDir == "" {
		return opts, errors.New("usage: chart-render CHART_DIR [--name N] [--namespace NS] [-f values.yaml]... [--set a.b=v]... [--skip-schema-validation] [--notes]")
	}
	return opts, nil
}

func readYAMLMap(file string) (map[string]interface{}, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	out := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return out, nil
}

// coalesce merges src over dst as helm does for user values: maps merge key by key, anything else
// replaces, and an explicit null deletes the key.
func coalesce(dst, src map[string]interface{}) map[string]interface{} {
	for k, sv := range src {
		if sv == nil {
			delete(dst, k)
			continue
		}
		sm, sIsMap := sv.(map[string]interface{})
		dm, dIsMap := dst[k].(map[string]interface{})
		if sIsMap && dIsMap {
			dst[k] = coalesce(dm, sm)
		} else {
			dst[k] = sv
		}
	}
	return dst
}

// setValue applies one --set a.b.c=v with helm's typing of scalars.
func setValue(values map[string]interface{}, expr string) error {
	eq := strings.Index(expr, "=")
	if eq <= 0 {
		return fmt.Errorf("--set %q: want key=value", expr)
	}
	keys := strings.Split(expr[:eq], ".")
	raw := expr[eq+1:]
	var val interface{} = raw
	switch {
	case raw == "true":
		val = true
	case raw == "false":
		val = false
	case raw == "null":
		val = nil
	default:
		if n, err := strconv.ParseInt(raw, 10, 64); err == nil && !(len(raw) > 1 && raw[0] == '0') {
			val = n
		}
	}
	m := values
	for _, k := range keys[:len(keys)-1] {
		child, ok := m[k].(map[string]interface{})
		if !ok {
			child = map[string]interface{}{}
			m[k] = child
		}
		m = child
	}
	last := keys[len(keys)-1]
	if val == nil {
		delete(m, last)
	} else {
		m[last] = val
	}
	return nil
}

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYAML(str string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(str), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(str string) []interface{} {
	a := []interface{}{}
	if err := yaml.Unmarshal([]byte(str), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func toJSON(v interface{}) string {
	data, err := yaml.YAMLToJSON([]byte(toYAML(v)))
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(str string) map[string]interface{} {
	return fromYAML(str) // JSON is YAML; sigs.k8s.io/yaml decodes both alike
}

// funcMap is sprig's plus helm's additions; include and tpl are bound to the template set later.
func funcMap() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	extra := template.FuncMap{
		"toYaml":        toYAML,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"fromJson":      fromJSON,
		"required": func(msg string, v interface{}) (interface{}, error) {
			if v == nil {
				return v, errors.New(msg)
			}
			if s, ok := v.(string); ok && s == "" {
				return v, errors.New(msg)
			}
			return v, nil
		},
		"lookup": func(string, string, string, string) (map[string]interface{}, error) {
			return map[string]interface{}{}, nil
		},
		"include": func(string, interface{}) (string, error) { return "", errors.New("include not bound") },
		"tpl":     func(string, interface{}) (string, error) { return "", errors.New("tpl not bound") },
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

func run(opts options, out *os.File) error {
	chartDir := filepath.Clean(opts.chartDir)
	meta := chartMeta{}
	chartYAML, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(chartYAML, &meta); err != nil {
		return fmt.Errorf("Chart.yaml: %w", err)
	}
	if meta.Name == "" {
		return errors.New("Chart.yaml: name is required")
	}

	values := map[string]interface{}{}
	if _, err := os.Stat(filepath.Join(chartDir, "values.yaml")); err == nil {
		if values, err = readYAMLMap(filepath.Join(chartDir, "values.yaml")); err != nil {
			return err
		}
	}
	for _, file := range opts.valueFiles {
		user, err := readYAMLMap(file)
		if err != nil {
			return err
		}
		values = coalesce(values, user)
	}
	for _, s := range opts.sets {
		if err := setValue(values, s); err != nil {
			return err
		}
	}

	if !opts.skipSchema {
		if err := validateSchema(chartDir, meta.Name, values); err != nil {
			return err
		}
	}

	builtin := versionSet{"v1", "apps/v1", "batch/v1", "policy/v1", "rbac.authorization.k8s.io/v1",
		"networking.k8s.io/v1", "autoscaling/v2", "apiextensions.k8s.io/v1", "coordination.k8s.io/v1",
		"storage.k8s.io/v1", "admissionregistration.k8s.io/v1", "discovery.k8s.io/v1"}
	top := map[string]interface{}{
		"Values": values,
		"Release": map[string]interface{}{
			"Name": opts.name, "Namespace": opts.namespace, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
		"Chart": meta,
		"Capabilities": map[string]interface{}{
			"KubeVersion": map[string]interface{}{"Version": "v1.30.0", "Major": "1", "Minor": "30", "GitVersion": "v1.30.0"},
			"APIVersions": append(builtin, opts.apiVersions...),
			"HelmVersion": map[string]interface{}{"Version": "v3-approximation"},
		},
		"Files": files{root: chartDir},
	}

	// Helm names templates "<chart>/templates/<file>" and parses them all into one set, partials included.
	templateDir := filepath.Join(chartDir, "templates")
	var names []string
	err = filepath.Walk(templateDir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if !info.IsDir() {
			rel, _ := filepath.Rel(chartDir, p)
			names = append(names, path.Join(meta.Name, filepath.ToSlash(rel)))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(names)

	root := template.New("gotpl").Option("missingkey=zero")
	funcs := funcMap()
	root.Funcs(funcs)
	bindIncludeAndTpl(root, funcs)
	for _, name := range names {
		rel := strings.TrimPrefix(name, meta.Name+"/")
		data, err := os.ReadFile(filepath.Join(chartDir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		if _, err := root.New(name).Parse(string(data)); err != nil {
			return err
		}
	}

	var buf bytes.Buffer
	for _, name := range names {
		base := path.Base(name)
		isNotes := base == "NOTES.txt"
		if strings.HasPrefix(base, "_") || isNotes != opts.notes {
			continue
		}
		scope := map[string]interface{}{}
		for k, v := range top {
			scope[k] = v
		}
		scope["Template"] = map[string]interface{}{"Name": name, "BasePath": path.Join(meta.Name, "templates")}
		var rendered bytes.Buffer
		if err := root.ExecuteTemplate(&rendered, name, scope); err != nil {
			return err
		}
		text := strings.ReplaceAll(rendered.String(), "<no value>", "")
		if isNotes {
			buf.WriteString(text)
			continue
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		fmt.Fprintf(&buf, "---\n# Source: %s\n%s\n", name, text)
	}
	_, err = out.Write(buf.Bytes())
	return err
}

// validateSchema checks the merged values against values.schema.json, when the chart has one, with
// the validator and the message layout of helm's chartutil.ValidateAgainstSchema.
func validateSchema(chartDir, chartName string, values map[string]interface{}) error {
	schema, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	valuesYAML, err := yaml.Marshal(values)
	if err != nil {
		return err
	}
	valuesJSON, err := yaml.YAMLToJSON(valuesYAML)
	if err != nil {
		return err
	}
	if bytes.Equal(valuesJSON, []byte("null")) {
		valuesJSON = []byte("{}")
	}
	result, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(valuesJSON))
	if err != nil {
		return fmt.Errorf("values.schema.json: %w", err)
	}
	if result.Valid() {
		return nil
	}
	var sb strings.Builder
	for _, desc := range result.Errors() {
		sb.WriteString(fmt.Sprintf("- %s\n", desc))
	}
	return fmt.Errorf("values don't meet the specifications of the schema(s) in the following chart(s):\n%s:\n%s", chartName, sb.String())
}

// bindIncludeAndTpl gives include and tpl access to the template set, as helm's engine does.
func bindIncludeAndTpl(root *template.Template, funcs template.FuncMap) {
	const maxDepth = 1000
	depth := map[string]int{}
	funcs["include"] = func(name string, data interface{}) (string, error) {
		depth[name]++
		defer func() { depth[name]-- }()
		if depth[name] > maxDepth {
			return "", fmt.Errorf("rendering template has a nested reference name: %s", name)
		}
		var b bytes.Buffer
		if err := root.ExecuteTemplate(&b, name, data); err != nil {
			return "", err
		}
		return b.String(), nil
	}
	funcs["tpl"] = func(text string, data interface{}) (string, error) {
		clone, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err := clone.New("tpl").Parse(text)
		if err != nil {
			return "", fmt.Errorf("cannot parse template %q: %w", text, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
		}
		return strings.ReplaceAll(b.String(), "<no value>", ""), nil
	}
	root.Funcs(funcs)
}
