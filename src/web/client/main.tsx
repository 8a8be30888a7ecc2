// The dashboard's entry point: styles, then the app rendered into the shell's #app.
import { render } from 'preact'
import { App } from './app'
import './styles.css'

render(<App />, document.getElementById('app')!)
