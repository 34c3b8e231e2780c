"""The toolset's keyboard, timing and form members: type, key, hold_key, wait, form_input, file_upload.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core import fields as core_fields
from ..core import files as core_files
from ..core import input, keys
from ..core.fields import ANNOUNCE, VALUE_CHECK
from ..core.pipeline import Call, Click, Hold, Press, TypeText, perform
from ..core.policies import FilePolicy, PolicyError
from ..core.refs import NodeRef
from ..errors import CDPEngineError
from .driver_config import MemberError
from .member_host import MemberHost
from .state import ManagedTab

FORM_INPUT_JS = f"""function(value) {{
  let el = this;
  if (el.tagName === 'LABEL' && el.control) el = el.control;
  const tag = el.tagName;
  const type = (el.type || '').toLowerCase();
  const fire = () => {ANNOUNCE}(el);
  if (tag === 'INPUT' && type === 'file') return 'file';
  if (el.disabled || (el.getAttribute && el.getAttribute('aria-disabled') === 'true')) return 'disabled';
  if (tag === 'INPUT' && (type === 'checkbox' || type === 'radio')) {{
    if (typeof value !== 'boolean') return 'needs_bool';
    if (type === 'radio' && value === false && el.checked) return 'radio_false';
    if (el.checked !== value) el.click();
    return el.checked === value ? 'ok' : 'refused';
  }}
  const role = (el.getAttribute && el.getAttribute('role')) || '';
  if (['checkbox', 'switch', 'radio', 'menuitemcheckbox', 'menuitemradio'].includes(role)) {{
    if (typeof value !== 'boolean') return 'needs_bool';
    const current = () => el.getAttribute('aria-checked') === 'true';
    if (role.endsWith('radio') && value === false && current()) return 'radio_false';
    if (current() !== value) el.click();
    return current() === value ? 'ok' : 'refused';
  }}
  if (typeof value === 'boolean') {{
    return (tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'INPUT' || el.isContentEditable) ? 'not_checkbox' : 'not_field';
  }}
  const text = String(value);
  if (tag === 'SELECT') {{
    const options = Array.from(el.options);
    const norm = s => s.replace(/\\s+/g, ' ').trim();
    const option = options.find(o => o.value === text) || options.find(o => norm(o.text) === norm(text))
      || options.find(o => norm(o.text).toLowerCase() === norm(text).toLowerCase());
    if (!option) return 'no_option';
    if (option.matches(':disabled')) return 'option_disabled';
    if (!el.multiple) el.value = option.value;
    option.selected = true;
    fire();
    return 'ok';
  }}
  const textual = tag === 'TEXTAREA' || (tag === 'INPUT' && !['button', 'submit', 'reset', 'image', 'hidden'].includes(type));
  if (textual) {{
    if (el.readOnly) return 'readonly';
    if ({VALUE_CHECK}(el, text) !== null) return 'rejected';
    const proto = tag === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
    el.focus();
    setter.call(el, text);
    fire();
    if (el.value !== text && !(type === 'number' && Number(el.value) === Number(text))) return 'rejected';
    return 'ok';
  }}
  if (el.isContentEditable) {{
    el.focus();
    el.textContent = text;
    el.dispatchEvent(new InputEvent('input', {{bubbles: true, composed: true, inputType: 'insertReplacementText', data: text}}));
    return 'ok';
  }}
  return 'not_field';
}}"""


class InputMembers(MemberHost):
    """type, key, hold_key, wait, form_input and file_upload."""

    # ----- keyboard and timing ----------------------------------------------------------------

    async def _m_type(self, p: dict[str, Any], managed: ManagedTab) -> None:
        text = p["text"]  # text alone goes into the focused field; Enter and Tab are keys that may scroll
        await self._apply(managed, TypeText(text))

    async def _m_key(self, p: dict[str, Any], managed: ManagedTab) -> None:
        text, repeat = p["text"], p.get("repeat", 1)
        try:
            keys.parse_sequence(text)  # validate the whole sequence before pressing anything
        except keys.UnknownKeyError as exc:
            raise MemberError(f"Error: {exc}") from None
        await self._apply(managed, Press(text, repeat=repeat))

    async def _m_hold_key(self, p: dict[str, Any], managed: ManagedTab) -> None:
        text, duration = p["text"], float(p["duration"])
        try:
            keys.parse_chord(text)  # an unknown key fails before anything is pressed
        except keys.UnknownKeyError as exc:
            raise MemberError(f"Error: {exc}") from None
        await self._apply(managed, Hold(text, duration))  # holding for the requested time is the member's job

    async def _m_wait(self, p: dict[str, Any], managed: ManagedTab) -> None:
        await asyncio.sleep(float(p["duration"]))

    # ----- forms and files --------------------------------------------------------------------

    async def _m_form_input(self, p: dict[str, Any], managed: ManagedTab) -> None:
        ref = p["target"]["ref"]
        node = await self._resolve(managed, ref)
        value = p["value"]
        try:
            outcome = await self._apply(
                managed, Call(lambda: core_fields.call_in_world(managed.tab, node, FORM_INPUT_JS, value))
            )
        except CDPEngineError:
            raise MemberError(self._stale_text(ref, "the element was removed from the page")) from None
        errors = {
            "file": f"Error: {ref} is a file input; use file_upload.",
            "needs_bool": f"Error: {ref} is a checkbox or radio button; set it to true or false.",
            "radio_false": f"Error: {ref} is a radio button and cannot be cleared; set the one you want in its group to true instead.",
            "not_checkbox": f"Error: {ref} is not a checkbox; give it a text or number value.",
            "no_option": f"Error: The select {ref} has no option with that value or text.",
            "option_disabled": f"Error: That option of {ref} is disabled.",
            "disabled": f"Error: {ref} is disabled.",
            "readonly": f"Error: {ref} is read-only.",
            "rejected": f"Error: {ref} did not accept that value; check the format the field expects.",
            "refused": f"Error: {ref} did not change; the page may be preventing it.",
            "not_field": f"Error: {ref} is not a form field.",
        }
        if outcome != "ok":
            raise MemberError(errors.get(str(outcome), f"Error: {ref} is not a form field."))

    def _upload_paths(self, p: Mapping[str, Any]) -> list[str]:
        """The files to upload, each checked by the file policy (read only inside the upload roots)."""
        files: list[str] = []
        policy = self.policies.files
        texts = {
            "files.invalid_path": "is not a valid path",
            "files.no_upload_roots": "",
            "files.outside_upload_roots": "is outside the allowed upload folders",
            "files.not_a_file": "is not an existing file",
        }
        for i, raw in enumerate(p.get("paths") or []):
            try:
                files.append(str(policy.upload_path(raw)))
            except PolicyError as exc:
                if exc.rule == "files.no_upload_roots":
                    raise MemberError("Error: file_upload has no configured upload folders.") from None
                raise MemberError(f"Error: paths[{i}] {texts.get(exc.rule, 'is not allowed')}.") from None
        for i, doc in enumerate(p.get("document_ids") or []):
            mapped = self.config.upload_documents.get(doc)
            if mapped is None:
                raise MemberError(f"Error: document_ids[{i}] is not in the upload allowlist.")
            resolved = Path(os.path.realpath(mapped))
            if not resolved.is_file():
                raise MemberError(f"Error: document_ids[{i}] does not name an existing file.")
            files.append(str(resolved))
        return files

    async def _m_file_upload(self, p: dict[str, Any], managed: ManagedTab) -> str | None:
        ref = p["target"]["ref"]
        files = self._upload_paths(p)
        # The application's allowlist of documents is allowed as configured; paths only inside the roots.
        allowed = self.policies.files.listing(files)
        node = await self._resolve(managed, ref)
        try:
            target = await core_files.file_input(node.session, node.backend_node_id)
        except CDPEngineError:
            raise MemberError(self._stale_text(ref, "the element was removed from the page")) from None
        if target is not None:
            if len(files) > 1 and not target.multiple:
                raise MemberError(f"Error: {ref} takes one file.")
            if target.disabled:
                raise MemberError(f"Error: {ref} is disabled.")
            await self._apply(managed, Call(lambda: target.set_files(files, allowed)))
            return None
        await self._apply(managed, Call(lambda: self._upload_through_chooser(managed, node, ref, files, allowed)))
        return None

    async def _upload_through_chooser(
        self, managed: ManagedTab, node: NodeRef, ref: str, files: list[str], policy: FilePolicy
    ) -> None:
        """A button that opens a file chooser: intercept the chooser, click, and fill the input it names."""
        tab = managed.tab
        async with core_files.ChooserWatch([tab.session, node.session]) as watch:
            try:
                await perform(tab, Click(node))
            except input.NotClickableError as exc:
                raise MemberError(self._refused(ref, exc)) from None
            try:
                chooser = await watch.next(2.0)
            except TimeoutError:
                raise MemberError(
                    f"Error: {ref} is not a file input, and clicking it opened no file chooser."
                ) from None
            if len(files) > 1 and not chooser.multiple:
                raise MemberError(f"Error: The file chooser {ref} opened takes one file.")
            if chooser.backend_node_id is None:
                raise MemberError(f"Error: {ref} opened a file chooser that cannot be filled.")
            await chooser.set_files(files, policy)
