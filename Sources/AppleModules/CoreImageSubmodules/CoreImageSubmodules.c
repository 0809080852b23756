// A C target needs one source file; the target exists for its module map (include/module.modulemap).
