// Shows the server's health and who the visitor is, from GET /health and
// GET /api/whoami. Placeholder page until the web client is built.

/**
 * @param {string} id
 * @param {string} text
 */
function show(id, text) {
  const element = document.getElementById(id);
  if (element) element.textContent = text;
}

/**
 * @param {string} url
 * @returns {Promise<any>}
 */
async function getJson(url) {
  const response = await fetch(url, { headers: { Accept: 'application/json' } });
  const body = await response.json();
  if (!response.ok) {
    throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
  }
  return body;
}

async function main() {
  try {
    const health = await getJson('/health');
    show('health', `Running version ${health.version} on ${health.database}: ${health.status}.`);
  } catch (error) {
    show('health', `The server does not answer: ${error instanceof Error ? error.message : error}`);
  }
  try {
    const me = await getJson('/api/whoami');
    if (me.kind === 'user') show('whoami', `Signed in as ${me.name}.`);
    else if (me.kind === 'guest') show('whoami', `Playing as guest ${me.name}.`);
    else show('whoami', 'Not signed in.');
  } catch (error) {
    show('whoami', `Could not ask who you are: ${error instanceof Error ? error.message : error}`);
  }
}

main();
