"""What toolbelt tells a language server it can do, and its answer to the server's questions
about settings: only what the diagnostics and the lsp tools use — diagnostics pulled (with
dynamic registration: basedpyright registers them so) or pushed with versions, definitions,
references, implementations, hover, rename with document changes, configuration and
workspace folders; no work-done progress."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lsprotocol import types as lsp

__all__ = ["CAPABILITIES", "section"]


def section(settings: Mapping[str, Any], section: str | None) -> Any:
    """The value at the dotted ``section`` of ``settings`` (None where there is none)."""
    if not section:
        return dict(settings)
    value: Any = settings
    for part in section.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


CAPABILITIES = lsp.ClientCapabilities(
    general=lsp.GeneralClientCapabilities(
        position_encodings=[lsp.PositionEncodingKind.Utf16],
    ),
    text_document=lsp.TextDocumentClientCapabilities(
        synchronization=lsp.TextDocumentSyncClientCapabilities(did_save=False),
        publish_diagnostics=lsp.PublishDiagnosticsClientCapabilities(
            version_support=True, related_information=False
        ),
        diagnostic=lsp.DiagnosticClientCapabilities(dynamic_registration=True),
        definition=lsp.DefinitionClientCapabilities(link_support=False),
        references=lsp.ReferenceClientCapabilities(),
        implementation=lsp.ImplementationClientCapabilities(link_support=False),
        hover=lsp.HoverClientCapabilities(
            content_format=[lsp.MarkupKind.PlainText, lsp.MarkupKind.Markdown]
        ),
        document_symbol=lsp.DocumentSymbolClientCapabilities(
            hierarchical_document_symbol_support=True
        ),
        rename=lsp.RenameClientCapabilities(prepare_support=True),
    ),
    workspace=lsp.WorkspaceClientCapabilities(
        configuration=True,
        workspace_folders=True,
        workspace_edit=lsp.WorkspaceEditClientCapabilities(document_changes=True),
        symbol=lsp.WorkspaceSymbolClientCapabilities(),
    ),
    window=lsp.WindowClientCapabilities(work_done_progress=False),
)
