#!/usr/bin/env python3
"""A consumer of Frigate's `frigate/events` MQTT messages, written from Frigate's documented
payload (docs.frigate.video, integrations/mqtt: `type` new/update/end, `before` and `after`
object states with id, camera, frame_time, snapshot_time, label, sub_label, top_score,
false_positive, start_time, end_time, score, box, area, ratio, region, current_zones,
entered_zones, has_snapshot, has_clip, stationary, motionless_count, position_changes), the way
a home-automation integration reads them. It knows nothing of FrameFlow.

Reads one message payload per line on stdin (as an MQTT client hands them over), checks each
against the documented shape and the lifecycle an integration relies on (an event id starts
with `new`, ends once with `end` and `end_time` set, and says nothing after), and prints a
summary as JSON: {"messages": n, "events": n, "ended": n, "labels": {...}, "zones": [...]}.
Exits 1 with the first problem on stderr.

    mosquitto_sub -t frameflow/events | python3 scripts/frigate_events_subscriber.py
"""
import json
import sys

NUMBER = (int, float)
STATE_FIELDS = {
    "id": str, "camera": str, "frame_time": NUMBER, "label": str, "top_score": NUMBER, "false_positive": bool,
    "start_time": NUMBER, "score": NUMBER, "box": list, "area": NUMBER, "region": list, "current_zones": list,
    "entered_zones": list, "has_snapshot": bool, "has_clip": bool, "stationary": bool,
}
OPTIONAL_FIELDS = {  # present in later Frigate versions; null allowed where Frigate sends null
    "snapshot_time": NUMBER, "sub_label": (str, list), "end_time": NUMBER, "ratio": NUMBER,
    "motionless_count": int, "position_changes": int, "active": bool,
}


def fail(message):
    sys.stderr.write("frigate_events_subscriber: " + message + "\n")
    sys.exit(1)


def check_state(state, where):
    if not isinstance(state, dict):
        fail(where + " is not an object")
    for key, kind in STATE_FIELDS.items():
        if key not in state:
            fail("%s has no '%s'" % (where, key))
        value = state[key]
        if isinstance(value, bool) and kind is not bool and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            fail("%s.%s is a boolean" % (where, key))
        if not isinstance(value, kind):
            fail("%s.%s has type %s" % (where, key, type(value).__name__))
    for key, kind in OPTIONAL_FIELDS.items():
        if state.get(key) is not None and not isinstance(state[key], kind):
            fail("%s.%s has type %s" % (where, key, type(state[key]).__name__))
    for key in ("box", "region"):
        if len(state[key]) != 4 or not all(isinstance(v, NUMBER) for v in state[key]):
            fail("%s.%s is not 4 numbers" % (where, key))
        x1, y1, x2, y2 = state[key]
        if x2 < x1 or y2 < y1:
            fail("%s.%s is not [x1, y1, x2, y2]" % (where, key))
    if state["score"] < 0 or state["top_score"] < 0:
        fail(where + ": a negative score")
    if not all(isinstance(z, str) for z in state["current_zones"] + state["entered_zones"]):
        fail(where + ": zone names are not strings")
    if not set(state["current_zones"]) <= set(state["entered_zones"]):
        fail(where + ": a current zone was never entered")


def main():
    open_events = {}
    ended = set()
    labels = {}
    zones = set()
    count = 0
    for n, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        count += 1
        try:
            message = json.loads(line)
        except ValueError as e:
            fail("message %d is not JSON: %s" % (n, e))
        kind = message.get("type")
        if kind not in ("new", "update", "end"):
            fail("message %d: type %r" % (n, kind))
        check_state(message.get("before"), "message %d before" % n)
        check_state(message.get("after"), "message %d after" % n)
        after = message["after"]
        event = after["id"]
        if message["before"]["id"] != event:
            fail("message %d: before and after ids differ" % n)
        if event in ended:
            fail("message %d: event %s said something after its end" % (n, event))
        if kind == "new":
            if event in open_events:
                fail("message %d: a second new for %s" % (n, event))
            open_events[event] = after
            labels[after["label"]] = labels.get(after["label"], 0) + 1
        elif event not in open_events:
            fail("message %d: %s for %s before its new" % (n, kind, event))
        if after["frame_time"] < open_events[event]["frame_time"]:
            fail("message %d: frame_time went back" % n)
        open_events[event] = after
        zones.update(after["entered_zones"])
        if kind == "end":
            if after.get("end_time") is None:
                fail("message %d: end without end_time" % n)
            ended.add(event)
            del open_events[event]
        elif after.get("end_time") is not None:
            fail("message %d: end_time set on %s" % (n, kind))
    print(json.dumps({"messages": count, "events": len(ended) + len(open_events), "ended": len(ended), "open": len(open_events),
                      "labels": labels, "zones": sorted(zones)}, sort_keys=True))


main()
