import { Link } from 'react-router';

export function RouteError() {
  return (
    <main className="centered">
      <div className="card">
        <h1>This page could not be shown</h1>
        <p>Reload the page, or go back to <Link to="/alerts">the alerts</Link>.</p>
      </div>
    </main>
  );
}
