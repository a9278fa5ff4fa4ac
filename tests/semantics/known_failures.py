"""Cases of the semantic suite that fail today, per CPython version, with the reason.

tests/test_semantics.py marks these xfail(strict=True): when the decompiler learns a
case it XPASSes, which fails the run, and the entry must go. Keys of the inner dicts are
space-separated versions ("3.12 3.13") or "all". "wrong code" marks recompiled code that
runs differently (the worst kind); the other reasons are DecompilationErrors of
constructs not supported yet, quoted from the error.
"""

KNOWN_FAILURES = {
    'access.nested_subscripts': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'assign.unpack_dict_items': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'assign.unpack_in_for': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'assign.unpack_starred_in_for': {
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'calls.call_all_shapes': {
        '3.8': 'BUILD_TUPLE_UNPACK_WITH_CALL: not supported by the decompiler yet',
    },
    'calls.call_generator_arg': {
        '3.13 3.14': 'generator expressions with an exception table are not supported yet',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'calls.call_kw_and_star_order': {
        '3.8': 'BUILD_TUPLE_UNPACK_WITH_CALL: not supported by the decompiler yet',
    },
    'calls.call_star_args': {
        '3.8': 'BUILD_TUPLE_UNPACK_WITH_CALL: not supported by the decompiler yet',
    },
    'calls.call_star_kwargs': {
        '3.8': 'BUILD_MAP_UNPACK_WITH_CALL: not supported by the decompiler yet',
    },
    'classes.Child.explicit_super': {
        '3.12 3.13 3.14 3.15': 'LOAD_SUPER_ATTR: two-argument super() attribute load: not supported by the decompiler yet',
    },
    'classes.Child.private_attr': {
        '3.13 3.14 3.15': 'generator expressions with an exception table are not supported yet',
    },
    'classes.class_annotations': {
        '3.13': '`<build_class>` in a shape that is not recognized',
        '3.14 3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_body_control_flow': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'classes.class_body_uses_closure': {
        '3.13': '`<build_class>` in a shape that is not recognized',
        '3.14': '`<locals>` in a shape that is not recognized',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_dataclass': {
        '3.14 3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_docstring_and_dunders': {
        '3.13': '`<build_class>` in a shape that is not recognized',
        '3.14': '`<locals>` in a shape that is not recognized',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_dunder_class': {
        '3.14 3.15': '`<locals>` in a shape that is not recognized',
    },
    'classes.class_init_and_attributes': {
        '3.14': '`<locals>` in a shape that is not recognized',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_init_subclass': {
        '3.13': '`<build_class>` in a shape that is not recognized',
        '3.14': '`<locals>` in a shape that is not recognized',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_keywords_metaclass': {
        '3.14 3.15': '`<locals>` in a shape that is not recognized',
    },
    'classes.class_nested': {
        '3.13': '`<build_class>` in a shape that is not recognized',
        '3.14': '`<locals>` in a shape that is not recognized',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_private_names': {
        '3.13': '`<build_class>` in a shape that is not recognized',
        '3.14': '`<locals>` in a shape that is not recognized',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_property': {
        '3.13': '`<build_class>` in a shape that is not recognized',
        '3.14': '`<locals>` in a shape that is not recognized',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_simple': {
        '3.13': '`<build_class>` in a shape that is not recognized',
        '3.14': '`<locals>` in a shape that is not recognized',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_static_and_classmethod': {
        '3.13': '`<build_class>` in a shape that is not recognized',
        '3.14': '`<locals>` in a shape that is not recognized',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_super_zero_arg': {
        '3.14': '`<locals>` in a shape that is not recognized',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'classes.class_with_bases': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.comp_async_free_generator_send': {
        '3.13 3.14 3.15': 'generator expressions with an exception table are not supported yet',
    },
    'comprehensions.comp_closure_over_local': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.comp_conditional_element': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.comp_dict_nested': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.comp_flatten': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.comp_in_class_body': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.comp_iter_is_expression': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.comp_lambda_capture': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.comp_nested_generator_in_call': {
        '3.13': 'generator expressions with an exception table are not supported yet',
        '3.14 3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'comprehensions.comp_shadowing': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.comp_starred_element': {
        '3.8': 'BUILD_TUPLE_UNPACK: not supported by the decompiler yet',
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.comp_unpacking_target': {
        '3.8 3.9 3.10 3.11': 'a comprehension body of an unknown shape',
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.comp_walrus': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.dict_comp': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.generator_expr': {
        '3.13 3.14 3.15': 'generator expressions with an exception table are not supported yet',
    },
    'comprehensions.list_comp': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.list_comp_condition': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.list_comp_nested_comp': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.list_comp_nested_loops': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'comprehensions.set_comp': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'constants.displays_with_unpacking': {
        '3.8': 'BUILD_LIST_UNPACK: not supported by the decompiler yet',
    },
    'control.for_continue': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'control.for_else_break': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'control.for_else_no_break': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'control.for_loop': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'control.for_over_dict_and_modify': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'control.for_return_inside': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'control.for_target_attribute_and_subscript': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'control.loop_variable_after_loop': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'control.nested_loops': {
        '3.8 3.9 3.12 3.13 3.14': 'control flow too tangled to structure (duplication limit reached)',
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'control.nested_loops_with_else': {
        '3.8 3.9 3.10 3.11 3.12 3.13 3.14': 'control flow too tangled to structure (duplication limit reached)',
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'control.while_in_for': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'expressions.conditional_in_expr': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'expressions.lambda_closure': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'expressions.lambda_conditional_body': {
        '3.8 3.9 3.10 3.11 3.14': 'a lambda body that is not one expression',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'expressions.unary_chain': {
        '3.13 3.14 3.15': 'wrong code: `not not b` prints as `b` (the bool conversion is lost)',
    },
    'expressions.walrus_in_comprehension': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'fstrings.fstring_in_loop': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'functions.annotations_nested': {
        '3.13': 'generator expressions with an exception table are not supported yet',
        '3.14 3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'functions.closure_counter': {
        '3.15': 'GET_ITER: two-slot iterators (3.15): not supported by the decompiler yet',
    },
    'functions.closure_default_binding': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'functions.closure_late_binding': {
        '3.12 3.13 3.14 3.15': 'exception handling (try/except/with) is not supported yet',
    },
    'functions.generator_expression_closure': {
        '3.13 3.14': 'generator expressions with an exception table are not supported yet',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'imports.from_import': {
        '3.15': 'IMPORT_NAME: lazy import: not supported by the decompiler yet',
    },
    'imports.from_import_as': {
        '3.15': 'IMPORT_NAME: lazy import: not supported by the decompiler yet',
    },
    'imports.from_import_dotted_module': {
        '3.15': 'IMPORT_NAME: lazy import: not supported by the decompiler yet',
    },
    'imports.from_import_missing_name': {
        '3.15': 'IMPORT_NAME: lazy import: not supported by the decompiler yet',
    },
    'imports.import_as': {
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'imports.import_dotted': {
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'imports.import_dotted_as': {
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'imports.import_global_declared': {
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'imports.import_in_nested_function': {
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'imports.import_inside_branch': {
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'imports.import_missing': {
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'imports.import_plain': {
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'py312_fstrings.fstring_backslash_in_expression': {
        '3.12': "FORMAT_VALUE: an f-string field that needs a backslash, '#' or every kind of quote",
        '3.13 3.14 3.15': "FORMAT_SIMPLE: an f-string field that needs a backslash, '#' or every kind of quote",
    },
    'py312_fstrings.type_alias_statement': {
        '3.12 3.13 3.14': 'CALL_INTRINSIC_1: not supported by the decompiler yet',
        '3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'py312_fstrings.type_params_generic_function': {
        '3.12 3.13 3.14 3.15': 'CALL_INTRINSIC_1: not supported by the decompiler yet',
    },
    'py314_templates.deferred_annotation_class_body': {
        '3.14 3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'py314_templates.deferred_annotation_forward_reference': {
        '3.14 3.15': 'LOAD_COMMON_CONSTANT: not supported by the decompiler yet',
    },
    'py314_templates.tstring_conversion_and_spec': {
        '3.14 3.15': 'BUILD_INTERPOLATION: not supported by the decompiler yet',
    },
    'py314_templates.tstring_self_documenting': {
        '3.14 3.15': 'BUILD_INTERPOLATION: not supported by the decompiler yet',
    },
    'py314_templates.tstring_simple': {
        '3.14 3.15': 'BUILD_INTERPOLATION: not supported by the decompiler yet',
    },
}
