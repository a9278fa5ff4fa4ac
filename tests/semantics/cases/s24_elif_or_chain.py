"""A long `elif` chain whose tests are `or`s of comparisons, some arms holding an
`if` of their own (the key handler of CPython 3.15's profiling live collector):
structuring folds each test's `or` while the rest of the chain is tried from every
test again. Each case runs every arm and the fall-through."""

from _sem import case

KEYS = tuple((k,) for k in "qQsSpPrR+=-_cC/tTxXjJkKuvwyz?") + ((-1,), (27,), (10,))


@case(*KEYS)
def key_chain(ch):
    state = {"running": True, "paused": False, "sort": 0, "interval": 0.5, "filter": "ab", "mode": "ALL", "sel": 0, "log": []}
    if ch == -1:
        return "none"
    if ch == 27 or ch == 10:
        state["filter"] = None
        return state
    if ch == "q" or ch == "Q":
        state["running"] = False
    elif ch == "s":
        state["sort"] += 1
    elif ch == "S":
        state["sort"] -= 1
    elif ch == "p" or ch == "P":
        state["paused"] = not state["paused"]
    elif ch == "r" or ch == "R":
        if not state["paused"]:
            state["log"].append("reset")
    elif ch == "+" or ch == "=":
        state["interval"] = max(0.05, state["interval"] - 0.05)
    elif ch == "-" or ch == "_":
        state["interval"] = min(1.0, state["interval"] + 0.05)
    elif ch == "c" or ch == "C":
        if state["filter"]:
            state["filter"] = None
    elif ch == "/":
        state["filter"] = state["filter"] or ""
    elif ch == "t" or ch == "T":
        if state["mode"] == "ALL":
            if len(state["log"]) > 0:
                state["mode"] = "PER_THREAD"
        else:
            state["mode"] = "ALL"
    elif ch == "x" or ch == "X":
        state["log"].append("trend")
    elif ch == "j" or ch == "J":
        state["sel"] += 1
    elif ch == "k" or ch == "K":
        state["sel"] -= 1
    elif ch == "u" or ch == "v" or ch == "w":
        if state["paused"]:
            state["sel"] = 0
        else:
            state["log"].append(ch)
    elif ch == "y" or ch == "z":
        state["sel"] = 10
    else:
        state["log"].append("unknown")
    return state
