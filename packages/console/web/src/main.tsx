/** Entry point: theme first (no flash of the wrong colours), then the app. */
import { render } from 'preact'
import { App } from './app.js'
import { applyTheme } from './theme.js'
import './styles.css'

applyTheme()
render(<App />, document.getElementById('app')!)
