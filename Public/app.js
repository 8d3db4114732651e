// The landing page: what the demo backend serves and who can sign in.
const text = (value) => document.createTextNode(String(value));

function row(cells) {
  const tr = document.createElement('tr');
  for (const cell of cells) {
    const td = document.createElement('td');
    td.append(text(cell));
    tr.append(td);
  }
  return tr;
}

function link(href, label) {
  const li = document.createElement('li');
  const a = document.createElement('a');
  a.href = href;
  a.append(text(label));
  li.append(a);
  return li;
}

async function main() {
  const status = document.getElementById('backend-status');
  try {
    const response = await fetch('/api/demo');
    if (!response.ok) throw new Error(`the console answered ${response.status}`);
    const { backendURL, configuration } = await response.json();
    status.textContent = `The backend is serving at ${backendURL}.`;
    const links = document.getElementById('backend-links');
    const first = configuration.programmers[0]?.id ?? 'REF30';
    links.append(link(`${backendURL}/adobe-services/1.0/config/${first}`, `Configuration the SDK loads for ${first} (XML)`));
    links.append(link(`${backendURL}/activate`, 'Second-screen activation page (enter a registration code)'));
    const subscribers = document.querySelector('#subscribers tbody');
    for (const s of configuration.subscribers) {
      subscribers.append(row([s.mvpd, s.username, s.password, s.entitlements.join(', ')]));
    }
    const programmers = document.querySelector('#programmers tbody');
    for (const p of configuration.programmers) programmers.append(row([p.id, p.name, p.mvpds.join(', ')]));
  } catch (error) {
    status.textContent = `Could not load the demo set-up: ${error.message}. Is passconsole serve running?`;
  }
}

main();
