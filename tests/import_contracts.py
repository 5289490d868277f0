"""An import-linter contract type: the source packages import the standard library only.

import-linter's `forbidden` contract names what may not be imported; a package that may import
nothing but the standard library would need every third-party package named, and the list would
go stale with each new dependency. This contract asks the graph instead: any module outside the
root packages and outside `sys.stdlib_module_names` that the sources reach, directly or through
other modules of the project, breaks it, and the chain that reaches it is printed.
"""
from __future__ import annotations

import sys

from importlinter import Contract, ContractCheck, fields, output
from importlinter.application import contract_utils


class StdlibOnlyContract(Contract):
    type_name = "stdlib_only"

    source_modules = fields.ListField(subfield=fields.ModuleField())
    ignore_imports = fields.SetField(subfield=fields.ImportExpressionField(), required=False)

    def check(self, graph, verbose: bool) -> ContractCheck:
        removal = contract_utils.remove_ignored_imports_and_report(
            graph=graph, ignore_imports=self.ignore_imports,
            unmatched_alerting=contract_utils.AlertLevel.ERROR)
        # The project's own top-level packages (external ones are squashed, one node each).
        roots = {name for name in graph.modules
                 if "." not in name and not graph.is_module_squashed(name)}
        chains = []
        for source in self.source_modules:
            reached = graph.find_upstream_modules(source.name, as_package=True)
            for module in sorted(reached):
                top = module.split(".")[0]
                if top in roots or top in sys.stdlib_module_names:
                    continue
                chain = graph.find_shortest_chain(importer=source.name, imported=module,
                                                  as_packages=True)
                chains.append((source.name, module, chain or (source.name, module)))
        return ContractCheck(kept=not chains, warnings=list(removal.warnings),
                             ignored_import_count=removal.ignored_import_count,
                             metadata={"chains": chains})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for source, module, chain in check.metadata["chains"]:
            output.print_error(f"{source} is not allowed to import {module} (not the standard "
                               "library):", bold=False)
            output.print_error("    " + " -> ".join(chain), bold=False)
            output.new_line()
