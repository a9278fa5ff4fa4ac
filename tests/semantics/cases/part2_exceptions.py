"""Part 2, exceptions: try/except (typed, tuple, named with the implicit `del`, bare),
else, finally (with return/break/continue inside), nested handlers, bare re-raise,
raise from and implicit chaining, exceptions raised in a callee and caught in the
caller."""

import sys

from _sem import case

X = ((1,), (0,), ("k",), ("v",), (None,))
LOOKUPS = (KeyError, IndexError)


class Failure(Exception):
    """An exception with an attribute of its own."""

    def __init__(self, code):
        Exception.__init__(self, "failure %d" % code)
        self.code = code


def check(x):
    """Raises an exception chosen by `x`, else returns `x * 2`."""
    if x is None:
        raise TypeError("none")
    if x == 0:
        raise ZeroDivisionError("zero")
    if x == "k":
        raise KeyError("k")
    if x == "v":
        raise ValueError("v")
    return x * 2


def deep(x, n):
    """`check(x)` called `n` frames down."""
    if n == 0:
        return check(x)
    return deep(x, n - 1)


def describe(e):
    """Type, message and chaining of an exception."""
    return (
        type(e).__name__, str(e),
        type(e.__cause__).__name__, type(e.__context__).__name__, e.__suppress_context__,
    )


def lookup_types():
    return (KeyError, ValueError)


@case(*X)
def except_typed(x):
    try:
        return check(x)
    except ValueError:
        return "value"


@case(*X)
def except_tuple(x):
    try:
        return check(x)
    except (KeyError, ValueError):
        return "kv"


@case(*X)
def except_tuple_global(x):
    try:
        return check(x)
    except LOOKUPS:
        return "lookup"


@case(*X)
def except_type_from_call(x):
    try:
        return check(x)
    except lookup_types():
        return "called"


@case(*X)
def except_named(x):
    try:
        return check(x)
    except (ValueError, KeyError) as e:
        return "named " + str(e)


@case(*X)
def except_named_implicit_del(x):
    e = "before"
    try:
        check(x)
    except ValueError as e:
        pass
    try:
        return e
    except NameError as n:
        return "deleted", type(n).__name__


@case(*X)
def except_named_rebound_in_handler(x):
    try:
        check(x)
    except Exception as e:
        e = "rebound"
        out = e
    else:
        out = "none"
    return out, "e" in dir()


@case(*X)
def except_named_explicit_del(x):
    try:
        check(x)
    except Exception as e:
        msg = str(e)
        del e
        return msg
    return "ok"


@case(*X)
def except_same_name_as_argument(e):
    try:
        check(e)
    except TypeError as e:
        return "t"
    try:
        return e
    except NameError:
        return "argument deleted"


@case(*X)
def except_bare(x):
    try:
        return check(x)
    except:
        return "bare"


@case(*X)
def except_bare_after_typed(x):
    try:
        return check(x)
    except KeyError:
        return "k"
    except:
        return "other"


@case(*X)
def except_order_base_first(x):
    try:
        check(x)
    except LookupError:
        return "lookup"
    except KeyError:
        return "never"
    except ArithmeticError as e:
        return "arith", e.args
    return "none"


@case(*X)
def except_many_handlers(x):
    try:
        v = check(x)
    except KeyError as e:
        v = ("k", e.args)
    except ValueError as e:
        v = ("v", str(e))
    except ZeroDivisionError:
        v = "z"
    except Exception as e:
        v = type(e).__name__
    return v


@case(*X)
def except_else(x):
    log = []
    try:
        v = check(x)
    except (KeyError, ValueError):
        log.append("handled")
    else:
        log.append(v)
    return log


@case(*X)
def except_else_raises(x):
    try:
        v = check(x)
    except ValueError:
        return "handled"
    else:
        raise Failure(v)


@case(*X)
def except_finally(x):
    log = []
    try:
        log.append(check(x))
    except KeyError:
        log.append("k")
    finally:
        log.append("fin")
    return log


@case(*X)
def try_finally_propagates(x, log=None):
    log = []
    try:
        log.append(check(x))
    finally:
        log.append("fin")
        log.append(len(log))
    return log


@case((1, []), (0, [1]), ("k", []))
def try_finally_logs_into_argument(x, log):
    try:
        return check(x)
    finally:
        log.append(x)


@case(*X)
def except_else_finally(x):
    log = []
    try:
        v = check(x)
    except (ValueError, TypeError) as e:
        log.append(str(e))
    else:
        log.append(v)
    finally:
        log.append("fin")
    return log


@case(*X)
def finally_return_overrides_exception(x):
    try:
        check(x)
    finally:
        return "finally"


@case(*X)
def finally_return_overrides_return(x):
    try:
        return check(x)
    finally:
        if x == 1:
            return "finally"


@case(*X)
def return_in_try_with_finally(x):
    log = []
    try:
        return log
    finally:
        log.append(x)


@case(*X)
def return_value_evaluated_before_finally(x):
    v = [x]
    try:
        return v[0]
    finally:
        v[0] = "changed"


@case(*X)
def break_in_try_finally(x):
    log = []
    for i in range(5):
        try:
            if i == 2:
                break
            log.append(check(x))
        finally:
            log.append(i)
    return log


@case(*X)
def continue_in_try_finally(x):
    log = []
    for i in range(3):
        try:
            if i == 1:
                continue
            log.append(i)
        finally:
            log.append("f%d" % i)
    return log


@case(*X)
def break_in_finally_swallows(x):
    log = []
    for i in range(3):
        try:
            log.append(check(x))
        finally:
            log.append(i)
            break
    return log


@case(*X)
def continue_in_finally_swallows(x):
    log = []
    for i in range(3):
        try:
            check(x if i else 1)
        finally:
            log.append(i)
            continue
    return log


@case(*X)
def return_in_except(x):
    try:
        v = check(x)
    except KeyError:
        return "k"
    except ValueError as e:
        return str(e)
    return v


@case(*X)
def break_in_except(x):
    log = []
    for i in range(4):
        try:
            check(x if i == 2 else i + 1)
        except Exception:
            break
        log.append(i)
    return log


@case(*X)
def continue_in_except(x):
    log = []
    for i in range(4):
        try:
            v = check(x if i % 2 else i + 1)
        except (KeyError, TypeError):
            continue
        except Exception:
            log.append("e")
            continue
        log.append(v)
    return log


@case(*X)
def return_in_else(x):
    try:
        v = check(x)
    except Exception:
        pass
    else:
        return "else", v
    return "after"


@case(*X)
def while_retry(x):
    tries = 0
    while True:
        tries += 1
        try:
            return check(x if tries > 2 else 0), tries
        except ZeroDivisionError:
            if tries > 5:
                raise
        except Exception:
            return "gave up", tries


@case(*X)
def try_in_for_else(x):
    log = []
    for i in range(3):
        try:
            log.append(check(x) + i)
        except Exception:
            log.append("x")
            break
    else:
        log.append("else")
    return log


@case(*X)
def try_around_loop(x):
    total = 0
    try:
        for i in range(3):
            total += check(x) + i
    except (ValueError, KeyError):
        total = -1
    return total


@case(*X)
def nested_inner_catches(x):
    log = []
    try:
        try:
            check(x)
        except KeyError:
            log.append("inner")
        log.append("after inner")
    except Exception as e:
        log.append(("outer", type(e).__name__))
    return log


@case(*X)
def nested_outer_catches(x):
    log = []
    try:
        try:
            check(x)
        except ValueError:
            log.append("inner")
            check(None)
        finally:
            log.append("inner fin")
    except TypeError as e:
        log.append(("outer", str(e)))
    finally:
        log.append("outer fin")
    return log


@case(*X)
def nested_try_in_handler(x):
    try:
        check(x)
    except Exception as e:
        try:
            return "handled", int(str(e))
        except ValueError:
            return "inner", type(e).__name__
    return "ok"


@case(*X)
def nested_try_in_finally(x):
    log = []
    try:
        log.append(check(x))
    except Exception:
        log.append("caught")
    finally:
        try:
            log.append(check("v"))
        except ValueError:
            log.append("fin caught")
    return log


@case(*X)
def nested_try_in_else(x):
    log = []
    try:
        v = check(x)
    except KeyError:
        log.append("k")
    else:
        try:
            log.append(check(v - 2))
        except ZeroDivisionError:
            log.append("else z")
    return log


@case(*X)
def nested_three_levels(x):
    log = []
    try:
        try:
            try:
                check(x)
            finally:
                log.append(1)
        except KeyError:
            log.append(2)
        finally:
            log.append(3)
    except Exception:
        log.append(4)
    return log


@case(*X)
def reraise_bare(x):
    log = []
    try:
        check(x)
    except (ValueError, KeyError):
        log.append("re")
        raise
    return log


@case(*X)
def reraise_named(x):
    try:
        check(x)
    except Exception as e:
        if isinstance(e, KeyError):
            return "kept"
        raise e


@case(*X)
def reraise_after_inner_handler(x):
    try:
        check(x)
    except Exception:
        try:
            check("k")
        except KeyError:
            pass
        raise


@case(*X)
def reraise_conditionally(x):
    try:
        return check(x)
    except Exception as e:
        if str(e) == "zero":
            return 0
        raise


@case(*X)
def raise_from(x):
    try:
        try:
            check(x)
        except (ValueError, KeyError) as e:
            raise Failure(1) from e
    except Failure as f:
        return describe(f), f.code
    return "none"


@case(*X)
def raise_from_none(x):
    try:
        try:
            check(x)
        except Exception:
            raise RuntimeError("hidden") from None
    except RuntimeError as r:
        return describe(r)
    return "none"


@case(*X)
def raise_from_uncaught(x):
    try:
        check(x)
    except ZeroDivisionError as e:
        raise ValueError("from zero") from e
    return "ok"


@case(*X)
def implicit_context(x):
    try:
        try:
            check(x)
        except Exception:
            raise LookupError("during")
    except LookupError as e:
        return describe(e)
    return "none"


@case(*X)
def context_from_finally(x):
    try:
        try:
            check(x)
        finally:
            if x != 1:
                raise Failure(2)
    except Exception as e:
        return describe(e)
    return "ok"


@case(*X)
def raise_class_not_instance(x):
    try:
        if x:
            raise ValueError
        raise KeyError
    except LookupError as e:
        return "lookup", e.args
    except ValueError as e:
        return "value", e.args


@case(*X)
def raise_in_handler_replaces(x):
    try:
        check(x)
    except KeyError:
        raise ValueError("replaced")
    return "ok"


@case(*X)
def raise_in_finally_replaces(x):
    try:
        check(x)
    finally:
        if x is None:
            raise Failure(3)
    return "ok"


@case(*X)
def caught_across_frames(x):
    try:
        return deep(x, 3)
    except (KeyError, ValueError) as e:
        return "deep", str(e)


@case(*X)
def caught_from_nested_function(x):
    log = []

    def inner(v):
        log.append("in")
        return check(v)

    try:
        return inner(x), log
    except Exception as e:
        return type(e).__name__, log


@case(*X)
def callee_catches_some(x):
    def inner(v):
        try:
            return check(v)
        except KeyError:
            return "inner k"

    try:
        return inner(x)
    except ValueError:
        return "outer v"


@case(*X)
def callee_reraises(x):
    def inner(v):
        try:
            return check(v)
        except Exception as e:
            raise Failure(len(str(e))) from e

    try:
        return inner(x)
    except Failure as f:
        return f.code, type(f.__cause__).__name__


@case(*X)
def exception_escapes_case(x):
    v = check(x)
    return v + 1


@case(*X)
def exc_info_in_and_after_handler(x):
    try:
        check(x)
    except Exception:
        inside = sys.exc_info()[0].__name__
    else:
        inside = None
    return inside, sys.exc_info()[0]


@case(*X)
def exception_attributes(x):
    try:
        raise Failure(7 if x else 8)
    except Failure as f:
        return f.code, f.args, str(f)


@case((1,), (0,), (-1,))
def assert_caught(x):
    try:
        assert x > 0, "not positive %d" % x
    except AssertionError as e:
        return "assert", str(e)
    return "fine"


@case((0,), (1,), (5,))
def stop_iteration_caught(n):
    it = iter(range(n))
    out = []
    while True:
        try:
            out.append(next(it))
        except StopIteration:
            break
    return out


@case(*X)
def handler_with_loop(x):
    try:
        check(x)
    except Exception as e:
        out = []
        for c in str(e):
            if c == "'":
                continue
            out.append(c)
        return out
    return []


@case(*X)
def handler_value_used_after(x):
    err = None
    try:
        check(x)
    except Exception as e:
        err = e
    return type(err).__name__, str(err)


@case(*X)
def if_inside_try(x):
    try:
        if x == 1:
            return "one"
        elif x == "k":
            check(x)
        else:
            check(None)
    except KeyError:
        return "k"
    except TypeError:
        return "t"


@case(*X)
def try_inside_if(x):
    if isinstance(x, str):
        try:
            check(x)
        except KeyError:
            return "str k"
    else:
        try:
            return check(x)
        except (TypeError, ZeroDivisionError) as e:
            return "other " + str(e)
    return "end"


@case(*X)
def finally_order(x):
    log = []

    def step(n):
        try:
            if n == 0:
                return check(x)
            return step(n - 1)
        finally:
            log.append(n)

    try:
        step(2)
    except Exception:
        log.append("caught")
    return log


@case(*X)
def finally_sees_loop_variable(x):
    log = []
    for i in range(3):
        try:
            if i == 1:
                check(x)
        except KeyError:
            continue
        finally:
            log.append(i)
    return log


@case(*X)
def try_except_pass_in_comprehension_helper(x):
    def safe(v):
        try:
            return check(v)
        except Exception:
            return None

    return [safe(v) for v in (x, 1, "k")]


@case(*X)
def augmented_in_handler(x):
    count = 0
    for v in (x, x, 1):
        try:
            count += check(v)
        except Exception:
            count -= 1
    return count


@case(*X)
def break_in_inner_loop_of_try_finally(x):
    # The break leaves only the inner loop: no copy of the finally body before it.
    log = []
    try:
        for i in range(3):
            log.append(i)
            break
        log.append(check(x))
    finally:
        log.append(i)
    return log


@case(*X)
def break_through_nested_finally(x):
    log = []
    for i in range(4):
        try:
            try:
                if i == 2:
                    break
                log.append(check(x if i else 1))
            finally:
                log.append("in%d" % i)
        finally:
            log.append("out%d" % i)
    return log


@case(*X)
def finally_several_returns(x):
    log = []
    try:
        if x == 1:
            return log
        if x == "k":
            return "k"
        log.append(check(x))
    finally:
        log.append("f")
    return len(log)


@case(*X)
def break_in_try_finally_rebinding(x):
    # The finally body rebinds the name that the code after the loop returns.
    log = []
    for i in range(4):
        try:
            if i == 2:
                break
            log.append(check(x))
        finally:
            log = log + ["f"]
    return log


@case(*X)
def break_in_try_finally_for_else(x):
    log = []
    for i in range(3):
        try:
            if i == x:
                break
        finally:
            log.append(i)
    else:
        log.append("else")
    return log


@case(*X)
def try_except_tail_copies(x):
    try:
        if check(x) > 2:
            r = "big"
        elif x == 1:
            r = "one"
        else:
            r = "other"
    except (KeyError, TypeError):
        r = "caught"
    return r


@case(*X)
def continue_in_try_finally_while_condition(x):
    # The finally body changes what the loop test reads after the continue.
    log = []
    i = 0
    while i < 5:
        try:
            if i == 1:
                continue
            log.append(check(x if i > 2 else 1))
        finally:
            i += 1
    return log, i


@case(*X)
def try_except_early_return_const(x):
    log = []
    try:
        if x == 1:
            return None
        log.append(check(x))
    except KeyError:
        return "k"
    log.append("after")
    return log


@case(*X)
def try_except_break_continue_in_loop(x):
    log = []
    for i in range(4):
        try:
            if i == 1:
                continue
            if i == 3:
                break
            log.append(check(x if i else 1))
        except (KeyError, TypeError):
            log.append("caught")
    return log


@case(*X)
def try_except_return_tuple_or_fall_to_loop(x):
    # The tuple is built in the try and returned after it; other paths go on looping.
    seen = []
    for b in (1, x, 2):
        try:
            val = check(b)
            if val:
                if val > 2:
                    seen.append(val)
                else:
                    return (b, True)
        except:
            return (b, False)
    return seen
