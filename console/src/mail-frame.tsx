import { useEffect, useMemo, useRef } from 'preact/hooks'

/**
 * An e-mail as it is rendered, in a sandboxed frame: no script of the message runs (no
 * `allow-scripts`), and nothing of it can reach the console. The frame is a srcdoc document, so
 * it inherits the console's CSP, which allows no inline styles (style-src 'self'); rather than
 * loosen that for the whole console, the message's `style` attributes are moved aside before it
 * is shown (parsed in an inert document) and applied through the CSSOM once it has loaded,
 * which CSP does not govern; the frame is same-origin (`allow-same-origin`) for that only. Its
 * links open in a new tab, outside the sandbox (the recipient's page must run its script), with
 * no opener and no referrer.
 */
const prepare = (html: string) => {
  // Renamed in the text, before any parser sees a style attribute (a DOMParser document of this
  // page applies its CSP too). The renderer escapes quotes in values, so `style=` only occurs as
  // an attribute.
  const doc = new DOMParser().parseFromString(
    html.replace(/(<[a-z][^>]*?\s)style=/gi, '$1data-mail-style='),
    'text/html',
  )
  for (const link of doc.querySelectorAll('a[href]')) {
    link.setAttribute('target', '_blank')
    link.setAttribute('rel', 'noopener noreferrer')
  }
  return `<!doctype html>${doc.documentElement.outerHTML}`
}

export const MailFrame = ({ html, title }: { html: string; title: string }) => {
  const ref = useRef<HTMLIFrameElement>(null)
  const srcdoc = useMemo(() => prepare(html), [html])
  useEffect(() => {
    const frame = ref.current
    if (!frame) return
    const style = () => {
      const doc = frame.contentDocument
      if (doc?.readyState !== 'complete') return
      for (const element of doc.querySelectorAll<HTMLElement>('[data-mail-style]')) {
        element.style.cssText = element.dataset.mailStyle ?? ''
      }
      frame.style.height = `${Math.min(1400, Math.max(160, doc.documentElement.scrollHeight + 4))}px`
    }
    frame.addEventListener('load', style)
    style()
    return () => frame.removeEventListener('load', style)
  }, [srcdoc])
  return (
    <iframe
      ref={ref}
      class="mail-frame"
      title={title}
      sandbox="allow-same-origin allow-popups allow-popups-to-escape-sandbox"
      srcdoc={srcdoc}
    />
  )
}
