#!/usr/bin/env python3
"""Reads a Prometheus text-format exposition (version 0.0.4) on stdin with PyPI's
prometheus-client parser (`prometheus_client.parser.text_string_to_metric_families`), which
knows nothing of FrameFlow, and prints every sample as JSON:

    {"families": {"NAME": "TYPE", ...},
     "samples": [{"name": "...", "labels": {...}, "value": 1.0}, ...]}

Exits 1 with the parser's message on stderr if the text does not parse.

    curl -s http://127.0.0.1:8080/metrics | python3 scripts/prometheus_metrics_to_json.py
"""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    text = sys.stdin.read()
    families, samples = {}, []
    try:
        for family in text_string_to_metric_families(text):
            families[family.name] = family.type
            for s in family.samples:
                samples.append({"name": s.name, "labels": dict(s.labels), "value": s.value})
    except Exception as e:  # the parser raises ValueError and others on malformed text
        print(f"prometheus text does not parse: {e}", file=sys.stderr)
        sys.exit(1)
    json.dump({"families": families, "samples": samples}, sys.stdout)


if __name__ == "__main__":
    main()
