/** The few HTML pages of the operator console; no template engine, every value escaped. */

function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Herald</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 24rem; margin: 4rem auto; padding: 0 1rem; }
  label, input, button { display: block; width: 100%; box-sizing: border-box; }
  input { margin: 0.25rem 0 1rem; padding: 0.5rem; }
  button { padding: 0.5rem; }
  .error { color: #a00; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${body}
</body>
</html>`;
}

export function loginPage(csrf: string, error: string | null = null): string {
  return page(
    'Sign in',
    `${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/admin/login">
  <input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>`,
  );
}

export function logoutPage(csrf: string, email: string): string {
  return page(
    'Sign out',
    `<p>Signed in as ${escapeHtml(email)}.</p>
<form method="post" action="/admin/logout">
  <input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
  <button type="submit">Sign out</button>
</form>
<p><a href="/admin/queues">Back to the queues</a></p>`,
  );
}

export function refusedPage(message: string): string {
  return page(
    'Not allowed',
    `<p class="error" role="alert">${escapeHtml(message)}</p>
<p><a href="/admin/logout">Sign out</a></p>`,
  );
}
