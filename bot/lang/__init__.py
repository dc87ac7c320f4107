"""Code views of the languages besides Python: one interface (`base.CodeView`) for what the repair
loop reads in a source file, each language behind it parsed by tree-sitter's grammar (ast-grep)."""
