import { createRoot } from 'react-dom/client';
import { App } from './app';
import { prefetchPaths } from './paths-data';
import { mayAskBeforeSession } from './session';

// The paths list's first page travels while the session is read (bench/dashboard.ts: the 1 s goal).
if (location.pathname === '/paths' && mayAskBeforeSession()) prefetchPaths(location.search);
createRoot(document.getElementById('root')!).render(<App />);
