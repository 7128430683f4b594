import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

// The dynamic part judges the recorded sessions of the fixture servers; the static part reads the server code
// of the plain repository fixtures (packages whose server lives under src/, started by a bin/ launcher).
testDetectorFolder('A-1', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);
testDetectorFolder('A-1', detectors.filter((d) => d.genre === 'static'), import.meta.url, { skipServerFixtures: true });
