"""Cases of the semantic suite that fail today, per CPython version, with the reason.

tests/test_semantics.py marks these xfail(strict=True): when the decompiler learns a
case it XPASSes, which fails the run, and the entry must go. Keys of the inner dicts are
space-separated versions ("3.12 3.13") or "all". "wrong code" marks recompiled code that
runs differently (the worst kind); the other reasons are DecompilationErrors of
constructs not supported yet, quoted from the error.
"""

KNOWN_FAILURES = {
    's17_return_bound_exception.return_the_exception_in_with': {
        '3.11 3.12 3.13 3.14': 'the code after an `except ... as err` clause reads `err`, which the clause unbinds',
        '3.15': 'except clauses that go on elsewhere than the end of the region around their try',
    },
    's19_loops_in_handler_loops.endless_inner_loop_in_while_true': {
        '3.10': 'a construct that recovery could not shape (`__pop_except_held__` left in the output)',
    },
    's20_break_after_code_in_try.break_after_code_or_retry': {
        '3.10 3.11': 'a construct that recovery could not shape (`__pop_except__` left in the output)',
        '3.12 3.13': 'code between the end of an except clause and the code after its try',
    },
    'audit_differs.finally_body_with_try_and_return_in_clause': {
        '3.10': 'the normal exit of a try/finally does not run the finally body',
        '3.11': 'the code after an except clause is not the code after its try',
    },
    'part2_exceptions.reraise_after_inner_handler': {
        '3.10': 'an exception handler of an unknown shape',
    },
    'part2_exceptions.while_retry': {
        '3.8 3.9 3.10': 'a construct that recovery could not shape (`__exc_match__` left in the output)',
    },
    'part2_flow.nested_loops_break_from_handler': {
        '3.8 3.9': 'control flow too tangled to structure (duplication limit reached)',
    },
    'part2_flow.while_true_break_continue': {
        '3.8 3.9 3.10': 'a construct that recovery could not shape (`__exc_match__` left in the output)',
    },
    'part2_generators.gen_throw_in_loop': {
        '3.10': 'a copy of the finally body before code that leaves the try',
        '3.11 3.12 3.13': 'the code after an except clause is not the code after its try',
    },
    'part2_with.with_in_while': {
        '3.10': 'the code after a with differs on its normal and suppressed exits',
    },
    'part2_with.with_in_while_break_continue': {
        '3.10': 'the code after a with differs on its normal and suppressed exits',
    },
    'part2_wrong_tails.with_return_in_handler': {
        '3.8 3.9 3.10': 'the code after a with differs on its normal and suppressed exits',
        '3.11 3.12 3.13': 'a with statement whose handler goes on elsewhere than its normal exit',
        '3.14 3.15': 'LOAD_SPECIAL: not supported by the decompiler yet',
    },
    's10_refusals.for_retry_clause_with_loop': {
        '3.10': 'control flow too tangled to structure (duplication limit reached)',
        '3.11 3.12 3.13': 'control flow nested too deeply to structure',
    },
    's10_refusals.while_clauses_back_to_latch': {
        '3.10': 'a construct that recovery could not shape (`__exc_match__` left in the output)',
    },
    's10_refusals.while_nested_try_breaks_finally_only': {
        '3.10': 'a break out of an except clause nested in another try or with body of a while loop',
    },
    's10_refusals.while_nested_try_breaks_in_finally': {
        '3.10': 'a break out of an except clause nested in another try or with body of a while loop',
    },
    's13_fresh.return_attribute_in_try_except_finally': {
        '3.10': 'a copy of the finally body before code that leaves the try',
    },
    's13_fresh.return_cell_after_try_except_finally': {
        '3.10': 'a copy of the finally body before code that leaves the try',
    },
    's13_fresh.return_const_in_try_except_finally_then_attribute': {
        '3.10': 'a copy of the finally body before code that leaves the try',
    },
    's13_fresh.return_finally_rebinds_in_two_arms': {
        'all': 'a try or with body with several exits',
    },
    's6_async_with38.coro_async_with_break_continue': {
        '3.12 3.13 3.14 3.15': 'a with statement whose handler goes on elsewhere than its normal exit',
    },
    's6_loop_heads.finally_retry_loop_return': {
        'all': 'a try or with body with several exits',
    },
    's6_loop_heads.finally_retry_unhandled': {
        '3.8': 'SETUP_FINALLY: a handler whose first instruction (offset 30) is also the target of a jump (a loop starting a finally body), in a 3.8 finally body copied with branches: not supported by the decompiler yet',
        '3.10': 'a construct that recovery could not shape (`__reraise__` left in the output)',
    },
    's6_nested_finally38.break_continue_in_finally_in_try_except': {
        '3.11 3.12 3.13 3.14 3.15': 'a construct that recovery could not shape (`__reraise__` left in the output)',
    },
    's6_nested_finally38.close_like': {
        '3.10': 'a try or with body with several exits',
    },
    's6_nested_finally38.return_in_finally_in_try_except': {
        '3.8 3.9 3.10': 'the normal exit of a try/finally does not run the finally body',
        '3.11 3.12 3.13 3.14 3.15': 'a construct that recovery could not shape (`__reraise__` left in the output)',
    },
    's6_nested_finally38.return_in_finally_in_try_except_plain': {
        '3.11 3.12 3.13 3.14 3.15': 'a construct that recovery could not shape (`__reraise__` left in the output)',
    },
    's6_nested_finally38.try_finally_in_finally_in_loop': {
        '3.11': 'the normal exit of a try/finally does not run the finally body',
    },
    's6_nested_finally38.try_finally_in_finally_in_plain_loop': {
        '3.10': 'a try or with body with several exits',
    },
    's7_audA.break_in_clause_leaves_finally': {
        'all': 'a break out of an except clause nested in another try or with body of a while loop',
    },
    's7_audA.break_in_clause_leaves_with': {
        'all': 'a break out of an except clause nested in another try or with body of a while loop',
    },
    's7_audB.loop_return_name_in_try_finally_changed': {
        'all': 'the normal exit of a try/finally does not run the finally body',
    },
    's7_audB.with_body_for_else_return_break': {
        'all': 'a construct that recovery could not shape (`__with_exit__` left in the output)',
    },
    's7_n310.finally_starts_with_retry_loop': {
        '3.8': 'SETUP_FINALLY: a handler whose first instruction is also the target of a jump (a loop starting a finally body), in a 3.8 finally body copied with branches: not supported by the decompiler yet',
        '3.10': 'a construct that recovery could not shape (`__reraise__` left in the output)',
    },
    's7_n310.finally_starts_with_while_test': {
        '3.8': 'LOAD_FAST: a handler whose first instruction is also the target of a jump (a loop starting a finally body), in a 3.8 finally body copied with branches: not supported by the decompiler yet',
        '3.9': 'a construct that recovery could not shape (`__reraise__` left in the output)',
        '3.10 3.11 3.12 3.13': 'control flow too tangled to structure (duplication limit reached)',
    },
    's7_p15.break_nested_loops_from_handler': {
        '3.8 3.9 3.10': 'control flow too tangled to structure (duplication limit reached)',
    },
    's8_fin8.finally_if_continue_in_while': {
        '3.12 3.13': 'a try or with body with several exits',
    },
    's8_fin8.return_name_through_finally_if': {
        '3.8 3.9': 'a try or with body with several exits',
    },
    's9_d310.return_const_in_clause_in_with': {
        '3.11 3.12 3.13 3.14 3.15': 'code between the end of an except clause and the code after its try',
    },
    's9_d310.continue_in_clause_in_with': {
        '3.11 3.12 3.13 3.14 3.15': 'code between the end of an except clause and the code after its try',
    },
    's9_d310.break_in_clause_in_with': {
        '3.11 3.12 3.13 3.14 3.15': 'a construct that recovery could not shape (`__with_exit__` left in the output)',
    },
    's9_exc.finally_try_after_return_in_clause': {
        '3.10': 'the normal exit of a try/finally does not run the finally body',
        '3.11': 'the code after an except clause is not the code after its try',
    },
    's9_exc.finally_try_around_with_and_clause_return': {
        '3.10': 'the normal exit of a try/finally does not run the finally body',
        '3.11': 'the code after an except clause is not the code after its try',
    },
    's9_fin.async_finally_while_break': {
        '3.8': 'LOAD_FAST: a handler whose first instruction is also the target of a jump (a loop starting a finally body), in a 3.8 finally body copied with branches: not supported by the decompiler yet',
        '3.9 3.11 3.12 3.14 3.15': 'the normal exit of a try/finally does not run the finally body',
    },
    's9_fin.async_retry_then_reraise': {
        '3.9': 'the normal exit of a try/finally does not run the finally body',
    },
    's9_fin.finally_retry_loop_then_reraise': {
        '3.9': 'the normal exit of a try/finally does not run the finally body',
    },
    's9_fin.finally_while_break': {
        '3.8': 'LOAD_FAST: a handler whose first instruction is also the target of a jump (a loop starting a finally body), in a 3.8 finally body copied with branches: not supported by the decompiler yet',
        '3.11': 'the normal exit of a try/finally does not run the finally body',
    },
    's9_fin.finally_while_break_after_except': {
        '3.8': 'LOAD_FAST: a handler whose first instruction is also the target of a jump (a loop starting a finally body), in a 3.8 finally body copied with branches: not supported by the decompiler yet',
        '3.9 3.11 3.12 3.14 3.15': 'the normal exit of a try/finally does not run the finally body',
    },
    's9_fin.finally_while_break_only_exit': {
        '3.8': 'LOAD_FAST: a handler whose first instruction is also the target of a jump (a loop starting a finally body), in a 3.8 finally body copied with branches: not supported by the decompiler yet',
        '3.9': 'the normal exit of a try/finally does not run the finally body',
    },
    's9_fin.loop_through_finally_with_break_loop': {
        'all': 'a try or with body with several exits',
    },
    's10_handlers.break_after_with_in_try': {
        '3.12': 'a with statement whose handler goes on elsewhere than its normal exit',
    },
    's10_handlers.break_in_if_of_try_then_continue_clause': {
        '3.14 3.15': 'a try or with body with several exits',
    },
    's10_handlers.break_in_inner_try': {
        '3.10': 'control flow too tangled to structure (duplication limit reached)',
        '3.11 3.12 3.13 3.14 3.15': 'code after a try body reached from inside the body where no statement can leave it',
    },
    's10_handlers.loop_with_break_in_finally': {
        '3.10': 'the normal exit of a try/finally does not run the finally body',
    },
    'try_else_layouts.if_in_finally_with_return_in_body': {
        'all': 'a try or with body with several exits',
    },
    'try_else_layouts.return_in_nested_with_and_finally': {
        '3.8 3.9 3.10': 'the code after a with differs on its normal and suppressed exits',
        '3.11 3.12 3.13 3.14 3.15': 'a with statement whose handler goes on elsewhere than its normal exit',
    },
}
