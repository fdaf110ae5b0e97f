import { Link } from 'react-router';
import { EmptyState } from '../components/empty-state';
import { Page } from '../components/page';

export default function NotFoundPage() {
  return (
    <Page title="Not found">
      <EmptyState title="There is no page here">
        <p>Use the navigation, or go to <Link to="/alerts">the alerts</Link>.</p>
      </EmptyState>
    </Page>
  );
}
