/**
 * Text made safe inside HTML elements and quoted attributes: & < > " ' become
 * numeric character references (&#38; &#60; &#62; &#34; &#39;). The dashboard's
 * pages and the /docs page both escape with it.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
