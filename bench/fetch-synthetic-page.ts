// A synthetic article page of at most the requested size (within one section of it): navigation, sections with paragraphs,
// links, lists, tables and code, a footer. Used to show conversion time growing linearly.
export function syntheticArticle(targetBytes: number): string {
  const head = '<!doctype html><html><head><title>Synthetic article</title></head><body><nav><a href="/">Home</a> <a href="/blog">Blog</a></nav><main><article><h1>Synthetic article</h1>';
  const tail = '</article></main><footer><p>Footer text</p></footer></body></html>';
  const sections: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const section =
      `<section><h2>Section ${i}</h2>` +
      `<p>Paragraph ${i} explains, in a few plain sentences, how part ${i} of the system works, ` +
      `why it was built this way, and what to <a href="/docs/${i}">read next</a> before changing it.</p>` +
      `<ul><li>First point of section ${i}</li><li>Second point with <strong>emphasis</strong></li></ul>` +
      `<table><tr><th>Key</th><th>Value</th></tr><tr><td>id</td><td>${i}</td></tr></table>` +
      `<pre><code class="language-js">const value${i} = compute(${i});</code></pre></section>`;
    if (size + section.length > targetBytes) break;
    sections.push(section);
    size += section.length;
  }
  return head + sections.join('') + tail;
}
