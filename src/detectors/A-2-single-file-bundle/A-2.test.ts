import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

// The static part reads the built View (plain repository fixtures); the dynamic part judges the recorded host harness run of the fixture Apps.
testDetectorFolder('A-2', detectors.filter((d) => d.genre === 'static'), import.meta.url, { skipServerFixtures: true });
testDetectorFolder('A-2', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);
