import detectors from './index.js';
import { testDetectorFolder } from '../../../test/support/detector-tester.js';

// Both parts judge the same fixture Apps: the static part their server code, the dynamic part what tools/list served.
testDetectorFolder('A-6', detectors.filter((d) => d.genre === 'static'), import.meta.url);
testDetectorFolder('A-6', detectors.filter((d) => d.genre === 'dynamic'), import.meta.url);
