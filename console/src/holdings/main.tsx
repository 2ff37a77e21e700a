import { render } from 'preact'
import { takeSignInToken } from './holdings-api'
import { HoldingsApp } from './holdings-app'
import './holdings.css'

// The sign-in token is read from the fragment and the fragment cleared before anything renders:
// it lives in this module's memory only until it is exchanged for the tab's session.
render(<HoldingsApp token={takeSignInToken()} />, document.getElementById('root') as HTMLElement)

// A sign-in link opened in a tab already on this page only changes the fragment: start again
// from it, as a fresh load would.
window.addEventListener('hashchange', () => location.reload())
