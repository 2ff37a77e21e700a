import { render } from 'preact'
import { takeLinkToken } from './offer-api'
import { OfferApp } from './offer-app'
import './offer.css'

// The token is read from the fragment and the fragment cleared before anything renders: it then
// lives in this module's memory only, never in the address bar, the history or storage.
render(<OfferApp token={takeLinkToken()} />, document.getElementById('root') as HTMLElement)
