#!/usr/bin/env python3
"""Regenerate the seed corpora in fuzz/corpus/<harness>/ and the dictionaries in
fuzz/dict/<harness>.dict (fuzz/README.md).

The seeds are checked in; run this only to rebuild them after the sources they
come from change (examples/, rules/, openapi.yaml, ../shared/conformance):

    python3 fuzz/make_corpus.py            # needs PyYAML (python3-yaml)

Every seed file is named after what it holds, so a replay failure names its
input. Existing seeds of a harness are replaced; fuzz/regressions/ is never
touched.
"""
import glob
import json
import os
import shutil
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONF = os.path.join(ROOT, "..", "shared", "conformance")
OUT = os.path.join(ROOT, "fuzz", "corpus")


def compact(v):
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def writer(harness):
    d = os.path.join(OUT, harness)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    names = set()

    def put(name, data):
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80]
        base, n = name, 2
        while name in names:
            name = "%s-%d" % (base, n)
            n += 1
        names.add(name)
        if isinstance(data, str):
            data = data.encode()
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)

    return put


def request_seeds():
    put = writer("fuzz_request")
    for p in sorted(glob.glob(os.path.join(ROOT, "examples", "*.json"))):
        with open(p, "rb") as f:
            put("example-" + os.path.basename(p), f.read())
    with open(os.path.join(ROOT, "openapi.yaml")) as f:
        api = yaml.safe_load(f)
    for name, ex in sorted(api.get("components", {}).get("examples", {}).items()):
        v = ex.get("value")
        if isinstance(v, dict) and "task" in v and "model" in v:
            put("contract-example-" + name + ".json", compact(v))
    seeds = {
        "minimal-inference": {"task": "inference", "model": {"parameters": 7e9}},
        "minimal-training": {"task": "training", "model": {"parameters": 1.3e9}},
        "every-field": {
            "name": "every field", "task": "training", "framework": "pytorch-xla",
            "stage": "production",
            "model": {"architecture": "moe", "parameters": 4.7e11, "active_parameters": 4.7e10,
                      "embedding_parameters": 1e9, "flops_per_sample": 1e12,
                      "custom_ops": False, "dynamic_shapes": False, "sparse_embeddings": True,
                      "compute_pattern": "matmul", "layers": 64, "hidden_size": 8192,
                      "attention_heads": 64, "kv_heads": 8},
            "precision": "fp8",
            "training": {"tokens": 1e13, "samples": 1e9, "sequence_length": 8192,
                         "method": "lora", "global_batch_size": 4096, "deadline_hours": 2000,
                         "input_bound": True},
            "inference": {"requests_per_second": 3, "latency_ms_p99": 20,
                          "context_tokens": 8192, "input_tokens": 7000, "output_tokens": 1000,
                          "batch_size": 4, "kv_cache_precision": "fp8"},
            "constraints": {"deployment": "hybrid", "providers": ["aws", "gcp", "azure", "oci",
                                                                  "neocloud"],
                            "budget_usd": 2.5e7, "max_accelerators": 4096,
                            "accelerators": ["h100", "tpu-v5p", "mi300x"],
                            "pricing": "committed_3y"},
            "team": {"cuda_experience": "none", "xla_experience": "expert"},
            "objective": "time", "prefer_available": True},
        "limits-high": {"task": "training", "model": {"parameters": 1e15},
                        "training": {"tokens": 1e16, "global_batch_size": 10000000,
                                     "deadline_hours": 1000000},
                        "constraints": {"budget_usd": 1e12, "max_accelerators": 100000}},
        "limits-low": {"task": "inference", "model": {"parameters": 1e-300, "layers": 1,
                                                      "hidden_size": 1},
                       "inference": {"requests_per_second": 1e-9, "latency_ms_p99": 1e-9,
                                     "context_tokens": 1, "batch_size": 1},
                       "constraints": {"budget_usd": 0.01, "max_accelerators": 1}},
        "serving-huge-context": {"task": "inference", "precision": "int4",
                                 "model": {"parameters": 4.05e11, "layers": 126,
                                           "hidden_size": 16384},
                                 "inference": {"requests_per_second": 10000000,
                                               "context_tokens": 10000000, "batch_size": 100000},
                                 "objective": "cost", "prefer_available": True},
        "qlora-one-gpu": {"task": "fine-tuning", "model": {"parameters": 6.5e10},
                          "training": {"method": "qlora", "sequence_length": 2048}},
        "moe-serving-gqa": {"task": "inference", "precision": "fp8",
                            "model": {"architecture": "moe", "parameters": 4.67e10,
                                      "active_parameters": 1.29e10, "layers": 32,
                                      "hidden_size": 4096, "attention_heads": 32, "kv_heads": 8},
                            "inference": {"requests_per_second": 50, "latency_ms_p99": 30,
                                          "input_tokens": 120000, "output_tokens": 2000}},
        "diffusion-serving-flops": {"task": "inference",
                                    "model": {"architecture": "diffusion", "parameters": 2.6e9,
                                              "flops_per_sample": 6e14},
                                    "inference": {"requests_per_second": 2, "output_tokens": 0}},
        "recommender-embeddings": {"task": "training", "framework": "tensorflow",
                                   "model": {"architecture": "recommender", "parameters": 1e11,
                                             "embedding_parameters": 9.9e10,
                                             "sparse_embeddings": True},
                                   "training": {"samples": 4e9, "global_batch_size": 65536},
                                   "constraints": {"accelerators": ["tpu-v5p", "h100"]}},
        "on-prem-fp64": {"task": "fine-tuning", "framework": "onnx", "precision": "fp64",
                         "model": {"architecture": "gnn", "parameters": 2e8,
                                   "compute_pattern": "branching", "dynamic_shapes": True},
                         "constraints": {"deployment": "on-prem"},
                         "team": {"cuda_experience": "expert", "xla_experience": "none"}},
        "recommender-tpu": {"task": "training", "framework": "tensorflow", "precision": "bf16",
                            "model": {"architecture": "recommender", "parameters": 5e10,
                                      "sparse_embeddings": True,
                                      "compute_pattern": "elementwise"},
                            "constraints": {"providers": ["gcp"]}, "objective": "balanced"},
        "cnn-prototype-fp4": {"task": "inference", "stage": "prototype", "framework": "jax",
                              "precision": "fp4",
                              "model": {"architecture": "cnn", "parameters": 2.5e7},
                              "constraints": {"providers": ["neocloud"], "budget_usd": 50}},
        "spot-budget-unpriced": {"task": "training", "framework": "pytorch",
                                 "model": {"parameters": 7e9},
                                 "training": {"tokens": 1.4e11, "global_batch_size": 1024},
                                 "constraints": {"pricing": "spot", "budget_usd": 1e5},
                                 "team": {"xla_experience": "none"}, "objective": "cost"},
        "invalid-unknown-field": {"task": "inference", "model": {"parameters": 7e9},
                                  "colour": "blue"},
        "invalid-types": {"task": 3, "model": {"parameters": "7e9", "layers": 1.5},
                          "constraints": {"providers": ["aws", "aws"]}},
        "invalid-missing-model": {"task": "training"},
        "invalid-ranges": {"task": "inference", "model": {"parameters": 0},
                           "inference": {"batch_size": 0, "context_tokens": 1e12},
                           "name": ""},
        "explain-every-limit": {"task": "training", "framework": "jax",
                                "model": {"parameters": 7e10},
                                "training": {"deadline_hours": 300, "method": "lora"},
                                "constraints": {"budget_usd": 5e5, "max_accelerators": 512,
                                                "providers": ["gcp"],
                                                "accelerators": ["tpu-v5p", "h100"]},
                                "explain": ["changes", "robustness"]},
        "explain-serving-robustness": {"task": "inference", "precision": "fp8",
                                       "model": {"parameters": 7e10},
                                       "inference": {"requests_per_second": 20},
                                       "objective": "cost", "explain": ["robustness"]},
        "invalid-explain": {"task": "inference", "model": {"parameters": 7e9},
                            "explain": ["changes", "changes", "why", 5]},
    }
    for name, v in seeds.items():
        put(name + ".json", compact(v))
    put("malformed-trailing.json", '{"task":"inference","model":{"parameters":7e9}} x')
    put("malformed-duplicate-key.json", '{"task":"inference","task":"training","model":{"parameters":1}}')
    put("malformed-utf8.json", b'{"task":"inference","name":"\xc3\x28","model":{"parameters":1}}')
    put("malformed-surrogate.json", '{"name":"\\ud800","task":"inference","model":{"parameters":1}}')
    put("malformed-nul-escape.json", '{"name":"a\\u0000b","task":"inference","model":{"parameters":1}}')
    put("malformed-deep.json", "[" * 40 + "]" * 40)
    put("malformed-number.json", '{"task":"inference","model":{"parameters":01}}')
    put("unicode-name.json", compact({"name": "\u00e9t\u00e9 \U0001f680 " + "x" * 120,
                                      "task": "inference", "model": {"parameters": 1e9}}))


def logic_seeds():
    put = writer("fuzz_logic")
    with open(os.path.join(CONF, "jsonlogic", "tests.json")) as f:
        cases = json.load(f)
    i = 0
    for c in cases:
        if not isinstance(c, list):
            continue
        rule, data = c[0], c[1]
        op = next(iter(rule)) if isinstance(rule, dict) and len(rule) == 1 else "literal"
        put("jsonlogic-%03d-%s" % (i, op), compact(rule) + "\n" + compact(data))
        i += 1
    # The default rules' conditions, over the facts document the engine builds
    # (core/src/workload/workload.c dc__facts_build) for the contract's example workload.
    with open(os.path.join(ROOT, "openapi.yaml")) as f:
        api = yaml.safe_load(f)
    wl = api["components"]["examples"]["Recommendation"]["value"]["workload"]
    facts = dict(wl)
    facts["model"] = dict(wl["model"], layers=None, hidden_size=None)
    facts["training"] = {"tokens": 1.4e11, "global_batch_size": 256, "deadline_hours": None}
    facts["inference"] = dict(wl["inference"], latency_ms_p99=None)
    facts["constraints"] = dict(wl["constraints"], budget_usd=None, max_accelerators=None)
    facts["derived"] = {"training_flops": 0, "h100_days": 0, "memory_gb": 17.93,
                        "weights_gb": 14, "kv_cache_gb": 1.1, "precision_bits": 16}
    with open(os.path.join(ROOT, "rules", "rules.yaml")) as f:
        rules = yaml.safe_load(f)["rules"]
    for r in rules:
        put("rule-" + r["id"], compact(r["when"]) + "\n" + compact(facts))
    put("rule-only-no-data", '{"var":""}')
    put("deep-nesting", '{"!":' * 70 + "true" + "}" * 70 + "\nnull")
    put("map-reduce", compact({"reduce": [{"map": [{"var": "a"}, {"*": [{"var": ""}, 2]}]},
                                          {"+": [{"var": "current"}, {"var": "accumulator"}]}, 0]})
        + "\n" + compact({"a": list(range(50))}))


def rules_seeds():
    put = writer("fuzz_rules")
    sel = {"catalog.yaml": b"\x00", "sizing.yaml": b"\x01", "rules.yaml": b"\x02",
           "prices.yaml": b"\x03"}
    with open(os.path.join(ROOT, "rules", "sizing.yaml"), "rb") as f:
        put("sizing-full.yaml", sel["sizing.yaml"] + f.read())
    with open(os.path.join(ROOT, "rules", "catalog.yaml")) as f:
        cat = yaml.safe_load(f)
    # The whole catalog with one accelerator per line (flow style, no comments).
    lines = ["accelerators:"]
    for a in cat["accelerators"]:
        lines.append("  - " + compact(a))
    put("catalog-compact.yaml", sel["catalog.yaml"] + ("\n".join(lines) + "\n").encode())
    put("catalog-one.yaml", sel["catalog.yaml"] +
        ("accelerators:\n  - " + compact(cat["accelerators"][0]) + "\n").encode())
    with open(os.path.join(ROOT, "rules", "rules.yaml")) as f:
        text = f.read()
    # The rule file in chunks of whole rules, as written (comments included).
    body = text[text.index("\nrules:\n") + len("\nrules:\n"):]
    starts = [i for i in range(len(body)) if body.startswith("  - id:", i)]
    chunk = 8
    for k in range(0, len(starts), chunk):
        end = starts[k + chunk] if k + chunk < len(starts) else len(body)
        put("rules-%02d.yaml" % (k // chunk), sel["rules.yaml"] + ("rules:\n" + body[starts[k]:end]).encode())
    yamls = {
        "anchor-alias": "a: &x 1\nb: *x\n",
        "duplicate-key": "rules:\n  - id: a\n    id: b\n",
        "tag": "rules: !!str x\n",
        "custom-tag": "rules: !foo x\n",
        "multi-doc": "rules: []\n---\nrules: []\n",
        "numbers": "a: [0x1f, 0o17, 1e3, -2.5, .inf, .nan, 1_000, +1, 0b101, 1e400]\n",
        "block-scalars": "a: |\n  line 1\n  line 2\nb: >-\n  folded\n  text\n",
        "flow-nested": "{a: [1, {b: [2, {c: 3}]}], d: {e: null, f: ~, g: }}\n",
        "crlf": "rules:\r\n  - id: x\r\n    when: true\r\n",
        "bom-utf8": "\ufeffaccelerators: []\n",
        "non-scalar-key": "? [a, b]\n: c\n",
        "tabs": "a:\n\t- b\n",
        "deep": "a: " + "[" * 70 + "]" * 70 + "\n",
        "empty": "",
        "comment-only": "# nothing\n",
        "unicode-breaks": "a: b\u2028c: d\u0085e: f\n",
    }
    for i, (name, t) in enumerate(sorted(yamls.items())):
        put("yaml-" + name + ".yaml", bytes([i % 4]) + t.encode())
    put("yaml-utf16.yaml", b"\x02" + "rules: []\n".encode("utf-16"))
    put("sizing-bad-values.yaml", sel["sizing.yaml"] +
        b"sizing:\n  memory_usable_fraction: 1.5\n  training: {bytes_per_parameter: -1}\nscoring: {base: 500}\n")
    with open(os.path.join(ROOT, "rules", "prices.yaml"), "rb") as f:
        put("prices-full.yaml", sel["prices.yaml"] + f.read())
    with open(os.path.join(ROOT, "rules", "prices.yaml")) as f:
        prices = yaml.safe_load(f)
    put("prices-compact.yaml", sel["prices.yaml"] + ("prices:\n" + "".join(
        "  - " + compact(o) + "\n" for o in prices["prices"]) + "hardware:\n"
        "  - {accelerator: h100, usd_per_chip: 25000, as_of: \"2026-01\", "
        "source: https://example.com/h}\n").encode())
    put("prices-bad.yaml", sel["prices.yaml"] +
        b"prices:\n  - accelerator: h999\n    provider: ibm\n  - accelerator: h100\n"
        b"    provider: aws\n    region: r\n    offer: o\n    source: ftp://x\n"
        b"    confidence: meh\n    on_demand: {usd_per_chip_hour: -1, as_of: 2026}\n"
        b"    spot: {usd_per_chip_hour: 1, as_of: \"2026-13\"}\n"
        b"hardware: [7, {accelerator: h100, usd_per_chip: 0}]\n")
    put("rules-gate.yaml", sel["rules.yaml"] +
        b"rules:\n  - id: gate\n    description: d\n    source: https://example.com/g\n"
        b"    fact: F1.13\n    when: true\n    effect: {rank_below: {families: [tpu], below: gpu}}\n"
        b"  - id: same-fact\n    description: d\n    source: https://example.com/s\n"
        b"    fact: F1.13\n    when: true\n    effect: {families: {tpu: 30}}\n")
    put("rules-bad.yaml", sel["rules.yaml"] +
        b"rules:\n  - id: Bad_ID\n    when: {\"nope\": []}\n    effect: {families: {gpu: 1000}}\n"
        b"  - id: no-source\n    description: x\n    message: y\n    when: true\n"
        b"    effect: {exclude: {accelerators: [no-such-accelerator]}}\n")


def schema_seeds():
    put = writer("fuzz_schema")
    base = os.path.join(CONF, "json-schema-test-suite", "tests", "draft2020-12")
    skip = {"refRemote.json", "vocabulary.json"}
    for p in sorted(glob.glob(os.path.join(base, "*.json"))):
        name = os.path.basename(p)
        if name in skip:
            continue
        with open(p) as f:
            groups = json.load(f)
        for gi, g in enumerate(groups):
            tests = g["tests"]
            t = next((t for t in tests if not t["valid"]), tests[0])
            put("suite-%s-%02d" % (name[:-5], gi), compact(g["schema"]) + "\n" + compact(t["data"]))
    # The contract's Workload schema as a standalone document, with its example.
    with open(os.path.join(ROOT, "openapi.yaml")) as f:
        api = yaml.safe_load(f)
    schemas = api["components"]["schemas"]
    keep = ["Workload", "Model", "TrainingSpec", "InferenceSpec", "Constraints", "Team"]
    doc = {"$ref": "#/components/schemas/Workload",
           "components": {"schemas": {k: schemas[k] for k in keep if k in schemas}}}
    with open(os.path.join(ROOT, "examples", "llm-serving.json")) as f:
        inst = json.load(f)
    put("contract-workload", compact(doc) + "\n" + compact(inst))
    put("regex-classes", compact({"patternProperties": {"^[a-z]{2,4}\\d+$": {"type": "integer"}},
                                  "propertyNames": {"pattern": "^\\p{L}[\\w-]*$"}})
        + "\n" + compact({"ab12": 1, "zz9": "x", "\u00e9t\u00e9": 2}))
    put("regex-unicode", compact({"pattern": "^(?:[\\u0041-\\u005a]|\\s|\\S)*\\b.$"}) + "\n"
        + compact("A B \U0001f600 c"))


def probe_seeds():
    put = writer("fuzz_probe")
    values = {
        "vendor-nvidia": "0x10de\n", "vendor-amd": "0x1002\n", "vendor-google": "0x1ae0\n",
        "class-3d": "0x030200\n", "class-upper": "0X1200FF\n", "vram": "81559306240\n",
        "u64-max": "18446744073709551615\n", "u64-over": "18446744073709551616\n",
        "no-newline": "0x10de", "pci-address": "0000:3b:00.0", "pci-address-8": "0001abcd:ff:1f.7",
        "pci-upper": "0000:3B:00.0", "pci-bad-dev": "0000:3b:20.0", "accel-node": "/dev/accel3",
        "vfio-node": "/dev/vfio/12", "vfio-ctl": "/dev/vfio/vfio", "pid": "4242",
        "long-max": "/dev/accel9223372036854775807", "long-over": "/dev/accel9223372036854775808",
    }
    for name, v in values.items():
        put("value-" + name, v)

    def host(name, fields):
        order = ["vendor", "device", "class", "subsystem_device", "vram_total", "vram_used",
                 "busy", "iommu_group", "fd_link", "cpuinfo", "meminfo", "pci_name"]
        last = max(order.index(k) for k in fields)
        put("host-" + name, "\0".join(fields.get(k, "") for k in order[:last + 1]))

    cpuinfo = ("processor\t: 0\nmodel name\t: AMD EPYC 9654 96-Core Processor\n\n"
               "processor\t: 1\nmodel name\t: AMD EPYC 9654 96-Core Processor\n\n")
    meminfo = "MemTotal:       2113612436 kB\nMemFree:        1024 kB\n"
    host("h100", {"vendor": "0x10de\n", "device": "0x2330\n", "class": "0x030200\n",
                  "subsystem_device": "0x16c1\n", "cpuinfo": cpuinfo, "meminfo": meminfo,
                  "pci_name": "0000:17:00.0"})
    host("mi300x", {"vendor": "0x1002\n", "device": "0x74a1\n", "class": "0x038000\n",
                    "vram_total": "205822885888\n", "vram_used": "9437184\n", "busy": "37\n",
                    "pci_name": "0000:0c:00.0"})
    host("mi300x-used-over-total", {"vendor": "0x1002\n", "device": "0x74a1\n",
                                    "class": "0x038000\n", "vram_total": "100\n",
                                    "vram_used": "101\n", "busy": "101\n"})
    host("tpu-v5e-held", {"vendor": "0x1ae0\n", "device": "0x0063\n", "class": "0x120000\n",
                          "iommu_group": "../../../../kernel/iommu_groups/0",
                          "fd_link": "/dev/vfio/0", "pci_name": "0000:00:04.0"})
    host("tpu-v4-accel", {"vendor": "0x1ae0\n", "device": "0x005e\n", "class": "0x0000ff\n",
                          "fd_link": "/dev/accel0", "pci_name": "0000:00:05.0"})
    host("tpu-v3-subsystem", {"vendor": "0x1ae0\n", "device": "0x0027\n",
                              "subsystem_device": "0x004f\n", "fd_link": "/dev/accel0"})
    host("nvswitch-bridge", {"vendor": "0x10de\n", "device": "0x22a3\n", "class": "0x068000\n"})
    host("bad-name", {"vendor": "0x10de\n", "device": "0x2330\n", "class": "0x030200\n",
                      "pci_name": "0000:17:00.0.extra"})
    for d in sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "hosts", "*"))):
        mi = os.path.join(d, "proc", "meminfo")
        ci = os.path.join(d, "proc", "cpuinfo")
        if os.path.exists(mi) and os.path.getsize(ci) <= 1024:
            with open(ci) as f1, open(mi) as f2:
                host("fixture-proc-" + os.path.basename(d), {"cpuinfo": f1.read(),
                                                             "meminfo": f2.read()})


def dict_entry(tok):
    """One libFuzzer dictionary line: the token quoted, with \\ \" and non-printables escaped."""
    out = []
    for b in tok.encode():
        c = chr(b)
        if c in "\\\"":
            out.append("\\" + c)
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append("\\x%02x" % b)
    return '"' + "".join(out) + '"'


def write_dict(harness, tokens):
    d = os.path.join(ROOT, "fuzz", "dict")
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, harness + ".dict"), "w") as f:
        f.write("# libFuzzer dictionary for %s, written by fuzz/make_corpus.py\n" % harness)
        for t in sorted(set(tokens)):
            f.write(dict_entry(t) + "\n")


def schema_words(node, keys, values):
    """Property names and enum values of the contract's schemas."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "properties" and isinstance(v, dict):
                keys.update(v.keys())
            if k == "enum" and isinstance(v, list):
                values.update(x for x in v if isinstance(x, str))
            schema_words(v, keys, values)
    elif isinstance(node, list):
        for v in node:
            schema_words(v, keys, values)


def dictionaries():
    with open(os.path.join(ROOT, "openapi.yaml")) as f:
        api = yaml.safe_load(f)
    keys, values = set(), set()
    request = ["Workload", "Model", "TrainingSpec", "InferenceSpec", "Constraints", "Team"]
    schema_words([api["components"]["schemas"][n] for n in request], keys, values)
    json_syntax = ["{", "}", "[", "]", ":", ",", "true", "false", "null", "\"\"", "-0", "1e308",
                   "\\u0000", "\\ud83d\\ude00", "\\\"", "0.5", "1e-300"]
    write_dict("fuzz_request", ['"%s":' % k for k in keys] + ['"%s"' % v for v in values]
               + json_syntax)
    logic_ops = ["var", "missing", "missing_some", "if", "?:", "==", "!=", "===", "!==", ">",
                 ">=", "<", "<=", "!", "!!", "and", "or", "+", "-", "*", "/", "%", "min", "max",
                 "map", "filter", "reduce", "all", "none", "some", "merge", "in", "cat",
                 "substr", "log", "current", "accumulator"]
    write_dict("fuzz_logic", ['{"%s":' % o for o in logic_ops] + json_syntax + ["\n"])
    schema_kw = ["$schema", "$id", "$ref", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor",
                 "$comment", "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum",
                 "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems",
                 "minItems", "uniqueItems", "maxContains", "minContains", "maxProperties",
                 "minProperties", "required", "dependentRequired", "allOf", "anyOf", "oneOf",
                 "not", "if", "then", "else", "dependentSchemas", "prefixItems", "items",
                 "contains", "properties", "patternProperties", "additionalProperties",
                 "propertyNames", "unevaluatedItems", "unevaluatedProperties", "format",
                 "default", "title", "description", "nullable", "discriminator",
                 "object", "array", "string", "number", "integer", "boolean"]
    regex = ["^", "$", "\\d", "\\w", "\\s", "\\b", "\\p{L}", "\\P{Lu}", "[^", "(?:", "{2,}",
             "*?", "+", "|", "\\u{1F600}"]
    write_dict("fuzz_schema", ['"%s":' % k for k in schema_kw] + ['"%s"' % k for k in schema_kw]
               + regex + json_syntax + ["\n", "#/$defs/", "#/components/schemas/"])
    with open(os.path.join(ROOT, "rules", "catalog.yaml")) as f:
        cat = yaml.safe_load(f)
    with open(os.path.join(ROOT, "rules", "rules.yaml")) as f:
        rules = yaml.safe_load(f)["rules"]
    with open(os.path.join(ROOT, "rules", "sizing.yaml")) as f:
        sizing = yaml.safe_load(f)
    rkeys = set()

    def walk(n):
        if isinstance(n, dict):
            for k, v in n.items():
                rkeys.add(str(k))
                walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)
    walk(cat)
    walk(rules)
    walk(sizing)
    ids = [a["id"] for a in cat["accelerators"]]
    yaml_syntax = ["- ", ": ", "\n  ", "&a", "*a", "!!str", "---", "...", "? ", "|", ">-", "~",
                   "null", "0x", "0o", ".inf", "'", "#"]
    write_dict("fuzz_rules", [k + ":" for k in rkeys] + ids + logic_ops + yaml_syntax)
    write_dict("fuzz_probe", ["0x", "\n", "\x00", "0x10de", "0x1002", "0x1ae0", "0x0300",
                              "0x0302", "0x0380", "0x1200", "0x0063", "0x005e", "0x0027",
                              "0x004f", "0x74a1", "0x2330", "/dev/accel", "/dev/vfio/",
                              "0000:", ":00.0", "processor\t: ", "model name\t: ",
                              "MemTotal: ", " kB", "iommu_groups/"])


def main():
    if not os.path.isdir(CONF):
        sys.exit("make_corpus: %s is missing" % CONF)
    request_seeds()
    logic_seeds()
    rules_seeds()
    schema_seeds()
    probe_seeds()
    dictionaries()
    for h in sorted(os.listdir(OUT)):
        files = os.listdir(os.path.join(OUT, h))
        size = sum(os.path.getsize(os.path.join(OUT, h, f)) for f in files)
        print("%-14s %4d seeds, %7d bytes" % (h, len(files), size))


if __name__ == "__main__":
    main()
