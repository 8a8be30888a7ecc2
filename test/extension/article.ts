// A local web page to save: an article wrapped in the navigation, sidebar and footer boilerplate real sites carry.

export const ARTICLE_TITLE = 'Tidal Locking of the Galilean Moons'
export const PARAGRAPHS = [
  'Every one of the four Galilean moons keeps the same face turned toward Jupiter, a state astronomers call tidal locking.',
  'Tidal forces from the giant planet stretched each moon slightly, and friction inside that bulge slowly braked its spin until one rotation took exactly one orbit.',
  'Io shows the consequence most dramatically: the flexing never stops because of its eccentric orbit, and the heat it releases powers more than four hundred active volcanoes.',
  'Europa, Ganymede and Callisto are locked as well, which is why maps of their surfaces have a fixed leading and trailing hemisphere.',
]
export const BOILERPLATE = [
  'Home',
  'Pricing',
  'Careers',
  'Subscribe to our newsletter',
  'Trending now: ten gadgets',
  '© 2025 Example Media Group',
  'Cookie preferences',
]

export function articleHtml(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${ARTICLE_TITLE} | Example Science</title>
<meta name="description" content="Why the Galilean moons always show Jupiter the same face."></head>
<body>
<header class="site-header"><nav class="menu"><a href="/">Home</a> · <a href="/pricing">Pricing</a> · <a href="/careers">Careers</a></nav></header>
<div class="layout">
<main>
<article>
<h1>${ARTICLE_TITLE}</h1>
<p class="byline">By Ada Example</p>
${PARAGRAPHS.map((p, i) => (i === 2 ? `<h2>Io's volcanoes</h2>\n<p id="p${i}">${p}</p>` : `<p id="p${i}">${p}</p>`)).join('\n')}
<ul><li>Io: locked</li><li>Europa: locked</li></ul>
</article>
</main>
<aside class="sidebar"><h3>Subscribe to our newsletter</h3><p>Trending now: ten gadgets you will love</p><form><input name="email"><button>Subscribe</button></form></aside>
</div>
<footer class="site-footer"><p>© 2025 Example Media Group</p><p><a href="/cookies">Cookie preferences</a></p></footer>
</body></html>`
}
