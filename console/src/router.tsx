import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'

/**
 * A small history router under the build's base path (/app/). The server answers every /app/*
 * path without a file with index.html, so any page can be reloaded or linked to.
 */
const BASE = import.meta.env.BASE_URL

/** The path inside the console, without the base and without leading or trailing slashes. */
const currentPath = () => {
  const path = decodeURI(location.pathname)
  const inside = path.startsWith(BASE) ? path.slice(BASE.length) : ''
  return inside.replace(/\/+$/, '')
}

export const href = (path: string) => `${BASE}${path.replace(/^\/+/, '')}`

const NAVIGATE = 'vs:navigate'

export const navigate = (path: string, options: { replace?: boolean } = {}) => {
  const url = href(path)
  if (url === location.pathname + location.search && !options.replace) return
  if (options.replace) history.replaceState(null, '', url)
  else history.pushState(null, '', url)
  window.dispatchEvent(new Event(NAVIGATE))
}

export const usePath = () => {
  const [path, setPath] = useState(currentPath)
  useEffect(() => {
    const update = () => setPath(currentPath())
    window.addEventListener('popstate', update)
    window.addEventListener(NAVIGATE, update)
    return () => {
      window.removeEventListener('popstate', update)
      window.removeEventListener(NAVIGATE, update)
    }
  }, [])
  return path
}

type LinkProps = {
  to: string
  class?: string
  'aria-current'?: 'page' | undefined
  children?: ComponentChildren
}

/** A real link (it opens in a new tab, it can be copied) that navigates without a reload. */
export const Link = ({ to, children, ...rest }: LinkProps) => (
  <a
    {...rest}
    href={href(to)}
    onClick={(event) => {
      if (
        event.defaultPrevented ||
        event.button !== 0 ||
        event.metaKey ||
        event.ctrlKey ||
        event.shiftKey ||
        event.altKey
      ) {
        return
      }
      event.preventDefault()
      navigate(to)
    }}
  >
    {children}
  </a>
)
